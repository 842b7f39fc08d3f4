package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/symbols"
)

func newSymbolsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "symbols FILE",
		Short: "Show what tree-sitter extracts from one file (no index needed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if _, ok := symbols.LanguageFor(path); !ok {
				return usagef("%s: unsupported file type", path)
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f, err := symbols.Extract(cmd.Context(), filepath.ToSlash(path), src)
			if err != nil {
				return err
			}
			if asJSON {
				// The top-level lists of every --json output are [] when
				// empty (docs/json.md).
				if f.Imports == nil {
					f.Imports = []symbols.Import{}
				}
				if f.Entities == nil {
					f.Entities = []symbols.Entity{}
				}
				if f.Refs == nil {
					f.Refs = []symbols.Ref{}
				}
				return writeJSON(cmd.OutOrStdout(), f)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s (%s", f.Path, f.Language)
			if f.Package != "" {
				fmt.Fprintf(w, ", package %s", f.Package)
			}
			if f.HasErrors {
				fmt.Fprint(w, ", with syntax errors")
			}
			fmt.Fprintln(w, ")")
			for _, e := range f.Entities {
				depth := 0
				for p := e.Parent; p >= 0 && depth < 10; p = f.Entities[p].Parent {
					depth++
				}
				fmt.Fprintf(w, "%*s%-9s %s  [%d-%d]", 2*depth+2, "", e.Kind, e.QualName, e.StartLine, e.EndLine)
				if e.Signature != "" {
					fmt.Fprintf(w, "  %s", e.Signature)
				}
				fmt.Fprintln(w)
			}
			if len(f.Imports) > 0 {
				fmt.Fprintln(w, "imports:")
				for _, im := range f.Imports {
					fmt.Fprintf(w, "  %s", im.Path)
					if im.Name != "" {
						fmt.Fprintf(w, ": %s", im.Name)
					}
					if im.Alias != "" {
						fmt.Fprintf(w, " as %s", im.Alias)
					}
					fmt.Fprintln(w)
				}
			}
			if len(f.Refs) > 0 {
				fmt.Fprintf(w, "references: %d\n", len(f.Refs))
				for _, r := range f.Refs {
					from := "file"
					if r.From >= 0 {
						from = f.Entities[r.From].QualName
					}
					name := r.Name
					if r.Qualifier != "" {
						name = r.Qualifier + "." + r.Name
					}
					fmt.Fprintf(w, "  %s %s %s (line %d)\n", from, r.Kind, name, r.Line)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
