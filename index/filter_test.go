package index

import "testing"

func TestBundledLibrary(t *testing.T) {
	tests := []struct {
		path, src string
		want      bool
	}{
		{"static/js/jquery-3.5.1.js", "(function(){})()", true},
		{"docs/_static/underscore-1.13.1.js", "var _ = {};", true},
		{"web/bootstrap.4.6.0.min.css", "a{}", true},
		{"static/js/lib.js", "/*! Lib v2.0.1 | (c) Someone | MIT */\n(function(){})()", true},
		{"static/js/lib.js", "/**\n * @license Lib 1.0.2\n * MIT\n */\nvar x;", true},
		{"static/css/bootstrap.css", "/*!\n * Bootstrap v4.6.0 (https://getbootstrap.com/)\n */\na{}", true},
		// A project's own banner names no release (express's lib/).
		{"lib/response.js", "/*!\n * express\n * Copyright(c) 2009-2013 TJ Holowaychuk\n * MIT Licensed\n */\nvar x;", false},
		{"lib/app.js", "/**\n * @license\n * Copyright Google LLC All Rights Reserved.\n * Apache License 2.0\n */\nvar x;", false},
		{"static/js/app.js", "// Our app.\nimport { x } from './x.js';\n", false},
		{"src/app-2.js", "var x;", false},                                            // a number, not a release
		{"src/app.js", "/* Copyright 2024 Us. Apache License 2.0 */\nvar x;", false}, // our own licence header
		{"src/app.js", "var x; /* @license later in the file, not a banner */", false},
		{"pkg/version-1.2.py", "/*! not a script */", false},
		{"src/api.v1.2.ts", "/*! a TypeScript source is never a bundled release */", false},
	}
	for _, tt := range tests {
		if got := bundledLibrary(tt.path, []byte(tt.src)); got != tt.want {
			t.Errorf("bundledLibrary(%q, %q) = %v, want %v", tt.path, tt.src, got, tt.want)
		}
	}
}
