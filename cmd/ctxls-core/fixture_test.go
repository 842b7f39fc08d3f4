package main

import (
	"os"
	"path/filepath"
	"testing"
)

// authWorkspace returns an indexed workspace with a small auth package:
// AuthService.Login, issueToken, HandleLogin and ErrDenied.
func authWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "auth"), 0o755)
	os.WriteFile(filepath.Join(root, "auth", "auth.go"), []byte(`package auth

// AuthService checks credentials against the user store.
type AuthService struct{ users map[string]string }

// Login verifies a password and returns a session token.
func (a *AuthService) Login(user, password string) (string, error) {
	if a.users[user] != password {
		return "", ErrDenied
	}
	return issueToken(user), nil
}

func issueToken(user string) string { return "t-" + user }
`), 0o644)
	os.WriteFile(filepath.Join(root, "auth", "handler.go"), []byte(`package auth

// HandleLogin is the HTTP entry point for logins.
func HandleLogin(svc *AuthService, user, pw string) string {
	tok, _ := svc.Login(user, pw)
	return tok
}
`), 0o644)
	os.WriteFile(filepath.Join(root, "auth", "errors.go"), []byte("package auth\n\nimport \"errors\"\n\n// ErrDenied is returned for a wrong password.\nvar ErrDenied = errors.New(\"denied\")\n"), 0o644)
	if _, errOut, code := ctxls(t, root, "index"); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	return root
}
