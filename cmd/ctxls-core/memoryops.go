package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/memory"
)

// The memory plugin's daily commands beside write and link: promote and
// demote (type), move (scope), rename (slug), tag and untag, edges and
// impact (graph).
func newMemoryOpsCmds() []*cobra.Command {
	return []*cobra.Command{newMemoryRetypeCmd("promote"), newMemoryRetypeCmd("demote"), newMemoryMoveCmd(),
		newMemoryRenameCmd(), newMemoryTagCmd(true), newMemoryTagCmd(false), newMemoryEdgesCmd(), newMemoryImpactCmd()}
}

func newMemoryRetypeCmd(name string) *cobra.Command {
	var f memoryCmd
	var t memory.Type
	cmd := &cobra.Command{
		Use:   name + " SLUG TYPE",
		Short: "Change a memory's type, keeping its slug, links and edges",
		Args:  cobra.ExactArgs(2),
		// A bad type is a usage error before the store is opened.
		PreRunE: func(_ *cobra.Command, args []string) (err error) {
			if t, err = memory.ParseType(args[1]); err != nil {
				return usagef("%v", err)
			}
			return nil
		},
		RunE: f.runE(slugScope, func(run *memoryRun) error {
			cmd, args, ms, sc := run.cmd, run.args, run.ms, run.scope
			var from memory.Type
			m, err := f.update(cmd.Context(), ms, sc, args[0], func(m *memory.Memory) error {
				from, m.Type = m.Type, t
				return nil
			})
			if err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), m.Summary())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s → %s (%s scope)\n", m.Slug, from, m.Type, sc)
			return nil
		}),
	}
	f.flags(cmd, "scope that holds the memory (default: the first that has it)")
	return cmd
}

func newMemoryMoveCmd() *cobra.Command {
	var f memoryCmd
	var to memory.Scope
	cmd := &cobra.Command{
		Use:   "move SLUG SCOPE",
		Short: "Move a memory to another scope (links stay within a scope: those to memories the target lacks are dropped)",
		Args:  cobra.ExactArgs(2),
		// A bad scope is a usage error before the store is opened.
		PreRunE: func(_ *cobra.Command, args []string) (err error) {
			if to, err = memory.ParseScope(args[1]); err != nil {
				return usagef("%v", err)
			}
			return nil
		},
		RunE: f.runE(slugScope, func(run *memoryRun) error {
			cmd, args, ctx, ms, from := run.cmd, run.args, run.ctx, run.ms, run.scope
			if from == to {
				return usagef("%s is already in the %s scope", args[0], to)
			}
			m, err := f.get(ctx, ms, from, args[0])
			if err != nil {
				return err
			}
			there, err := f.list(ctx, ms, to)
			if err != nil {
				return err
			}
			var kept, dropped []string
			for _, l := range m.Links {
				if slices.ContainsFunc(there, func(e memory.IndexEntry) bool { return e.Slug == l }) {
					kept = append(kept, l)
				} else {
					dropped = append(dropped, l)
				}
			}
			// Written in the target first: a failure between the two
			// steps leaves a copy, never a loss.
			m.Scope, m.Links, m.Problems = to, kept, nil
			if err := f.write(ctx, ms, m); err != nil {
				return err
			}
			if err := f.delete(ctx, ms, from, args[0]); err != nil {
				return fmt.Errorf("copied to the %s scope but not removed from %s: %w", to, from, err)
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					memory.Summary
					DroppedLinks []string `json:"droppedLinks,omitempty"`
				}{m.Summary(), dropped})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "moved %s: %s → %s (%s)\n", m.Slug, from, to, m.Path)
			if len(dropped) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "links not in the %s scope, dropped: %s\n", to, strings.Join(dropped, ", "))
			}
			return nil
		}),
	}
	f.flags(cmd, "scope that holds the memory (default: the first that has it)")
	return cmd
}

func newMemoryRenameCmd() *cobra.Command {
	var f memoryCmd
	cmd := &cobra.Command{
		Use:   "rename OLD NEW",
		Short: "Change a memory's slug, updating its file, index, edges and every link to it",
		Args:  cobra.ExactArgs(2),
		RunE: f.runE(slugScope, func(run *memoryRun) error {
			cmd, args, ms, sc := run.cmd, run.args, run.ms, run.scope
			if err := f.rename(cmd.Context(), ms, sc, args[0], args[1]); err != nil {
				return err
			}
			if f.asJSON {
				m, err := f.get(cmd.Context(), ms, sc, args[1])
				if err != nil {
					return err
				}
				return writeJSON(cmd.OutOrStdout(), m.Summary())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "renamed %s → %s (%s scope)\n", args[0], args[1], sc)
			return nil
		}),
	}
	f.flags(cmd, "scope that holds the memory (default: the first that has it)")
	return cmd
}

func newMemoryTagCmd(add bool) *cobra.Command {
	var f memoryCmd
	name, short := "tag", "Add tags to a memory"
	if !add {
		name, short = "untag", "Remove tags from a memory (one must remain)"
	}
	cmd := &cobra.Command{
		Use:   name + " SLUG TAG...",
		Short: short,
		Args:  cobra.MinimumNArgs(2),
		RunE: f.runE(slugScope, func(run *memoryRun) error {
			cmd, args, ms, sc := run.cmd, run.args, run.ms, run.scope
			var tags []string
			for _, a := range args[1:] {
				tags = append(tags, splitList(a)...)
			}
			m, err := f.update(cmd.Context(), ms, sc, args[0], func(m *memory.Memory) error {
				if add {
					m.Tags = append(m.Tags, tags...)
					return nil
				}
				var missing []string
				for _, t := range tags {
					if !slices.Contains(m.Tags, t) {
						missing = append(missing, t)
					}
				}
				if len(missing) > 0 {
					return fmt.Errorf("%s has no tag %s", m.Slug, strings.Join(missing, ", "))
				}
				m.Tags = slices.DeleteFunc(m.Tags, func(t string) bool { return slices.Contains(tags, t) })
				return nil
			})
			if err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), m.Summary())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: tags %s\n", m.Slug, strings.Join(m.Tags, ", "))
			return nil
		}),
	}
	f.flags(cmd, "scope that holds the memory (default: the first that has it)")
	return cmd
}

func newMemoryEdgesCmd() *cobra.Command {
	var f memoryCmd
	cmd := &cobra.Command{
		Use:   "edges SLUG",
		Short: "Print a memory's edges with their labels and the linked memories' titles",
		Args:  cobra.ExactArgs(1),
		RunE: f.runE(slugScope, func(run *memoryRun) error {
			cmd, args, ms, sc := run.cmd, run.args, run.ms, run.scope
			g, err := f.graph(cmd.Context(), ms, sc)
			if err != nil {
				return err
			}
			edges := g.Adj[args[0]]
			if f.asJSON {
				if edges == nil {
					edges = []memory.Edge{}
				}
				return writeJSON(cmd.OutOrStdout(), struct {
					Edges []memory.Edge `json:"edges"`
				}{edges})
			}
			titles := f.titles(cmd, ms, sc)
			for _, e := range edges {
				fmt.Fprintf(cmd.OutOrStdout(), "-[%s]-> %s  %s\n", e.Label, e.Target, titles[e.Target])
			}
			if len(edges) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%s has no edges\n", args[0])
			}
			return nil
		}),
	}
	f.flags(cmd, "scope that holds the memory (default: the first that has it)")
	return cmd
}

// titles maps the slugs of a scope's memories to their titles.
func (f *memoryCmd) titles(cmd *cobra.Command, ms *memory.Store, sc memory.Scope) map[string]string {
	out := map[string]string{}
	list, _ := f.list(cmd.Context(), ms, sc)
	for _, e := range list {
		out[e.Slug] = e.Title
	}
	return out
}

func newMemoryImpactCmd() *cobra.Command {
	var f memoryCmd
	var depth int
	cmd := &cobra.Command{
		Use:   "impact SLUG [--depth N]",
		Short: "List the memories reachable from one through the graph, nearest first",
		Args:  cobra.ExactArgs(1),
		RunE: f.runE(slugScope, func(run *memoryRun) error {
			cmd, args, ms, sc := run.cmd, run.args, run.ms, run.scope
			g, err := f.graph(cmd.Context(), ms, sc)
			if err != nil {
				return err
			}
			reach := g.Impact(args[0], depth)
			if f.asJSON {
				if reach == nil {
					reach = []memory.Reach{}
				}
				return writeJSON(cmd.OutOrStdout(), struct {
					Impact []memory.Reach `json:"impact"`
				}{reach})
			}
			titles := f.titles(cmd, ms, sc)
			for _, r := range reach {
				fmt.Fprintf(cmd.OutOrStdout(), "%d  %s  %s  (via %s -[%s]->)\n", r.Depth, r.Slug, titles[r.Slug], r.Via, r.Label)
			}
			if len(reach) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "nothing is linked to %s\n", args[0])
			}
			return nil
		}),
	}
	f.flags(cmd, "scope that holds the memory (default: the first that has it)")
	cmd.Flags().IntVar(&depth, "depth", 0, "at most this many edges away (0: any)")
	return cmd
}

// writeMermaid renders links as a Mermaid flowchart, each link once.
func writeMermaid(w io.Writer, g *memory.Graph, only string, titles map[string]string) error {
	var b strings.Builder
	b.WriteString("graph LR\n")
	nodes := map[string]bool{}
	var lines []string
	for _, l := range g.Links() {
		if only != "" && l.From != only && l.To != only {
			continue
		}
		nodes[l.From], nodes[l.To] = true, true
		lines = append(lines, fmt.Sprintf("  %s -->|%s| %s\n", l.From, l.Label, l.To))
	}
	if only != "" {
		nodes[only] = true
	}
	var ids []string
	for n := range nodes {
		ids = append(ids, n)
	}
	slices.Sort(ids)
	for _, n := range ids {
		label := n
		if t := titles[n]; t != "" {
			label = t
		}
		// Mermaid labels are quoted; a quote inside becomes its entity.
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", n, strings.ReplaceAll(label, `"`, "#quot;"))
	}
	for _, l := range lines {
		b.WriteString(l)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
