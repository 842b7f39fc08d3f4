package symbols

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// Constructs tree-sitter misreads are parsed again (decision 0125). A C loop
// macro without braces (Linux's for_each_sched_entity): the function after
// it was lost or renamed, and every function after that nested in the
// loop's function. TypeScript overloads that begin with their type
// parameters: the interface ended early and the declarations after it were
// lost.
func TestMisreadsParsedAgain(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            []string // "name start-end parent"
		calls           []string // calls from the first function
	}{
		{
			name: "a statement on the next line",
			path: "fair.c",
			src: `static void set_skip_buddy(struct sched_entity *se)
{
	for_each_sched_entity(se)
		cfs_rq_of(se)->skip = se;
}

static void check_preempt_wakeup(struct rq *rq, int wake_flags)
{
	struct task_struct *curr = rq->curr;
	return;
}

int other(void) { return 1; }
`,
			want:  []string{"set_skip_buddy 1-5 -", "check_preempt_wakeup 7-11 -", "other 13-13 -"},
			calls: []string{"cfs_rq_of", "for_each_sched_entity"},
		},
		{
			name: "two loops in a row",
			path: "list.c",
			src: `static void clear(struct sched_entity *se, struct rq *rq)
{
	for_each_sched_entity(se)
		cfs_rq_of(se)->next = NULL;
	for_each_leaf_cfs_rq(rq, cfs_rq)
		rq_of(cfs_rq)->nr = 0;
}

static int after(struct rq *rq, int flags)
{
	return flags;
}
`,
			want:  []string{"clear 1-7 -", "after 9-12 -"},
			calls: []string{"cfs_rq_of", "for_each_leaf_cfs_rq", "for_each_sched_entity", "rq_of"},
		},
		{
			name: "read as a function declared in the body, the tree without errors",
			path: "cgroup.c",
			src: `static void storages_free(struct bpf_cgroup_storage *storages[])
{
	enum bpf_cgroup_storage_type stype;

	for_each_cgroup_storage_type(stype)
		bpf_cgroup_storage_free(storages[stype]);
}
`,
			want:  []string{"storages_free 1-7 -"},
			calls: []string{"bpf_cgroup_storage_free", "for_each_cgroup_storage_type"},
		},
		{
			name: "braces: parsed right already",
			path: "braces.c",
			src: `void walk(struct list_head *h)
{
	list_for_each_entry(a, h, list) {
		a->seen = 1;
	}
}

void after(void)
{
}
`,
			want:  []string{"walk 1-6 -", "after 8-10 -"},
			calls: []string{"list_for_each_entry"},
		},
		{
			name: "C++, whose grammar reads this one",
			path: "fair.cc",
			src: `static void set_skip_buddy(struct sched_entity *se)
{
	for_each_sched_entity(se)
		cfs_rq_of(se)->skip = se;
}

static void check_preempt_wakeup(struct rq *rq, int wake_flags)
{
	return;
}
`,
			want:  []string{"set_skip_buddy 1-5 -", "check_preempt_wakeup 7-10 -"},
			calls: []string{"cfs_rq_of", "for_each_sched_entity"},
		},
		{
			name: "TypeScript overloads that begin with their type parameters",
			path: "types.ts",
			src: `export interface H {
  // one
  <A>(a: A): R<A>

  // two
  <A>(a: A): R<A>

  // three
  <A>(a: A): R<A>
}
export class Factory {
  m() { g() }
}
`,
			want: []string{"H 1-10 -", "Factory 11-13 -", "m 12-12 Factory"},
		},
		{
			name: "TypeScript: a generic arrow function on a line of its own is read right",
			path: "arrow.ts",
			src: `export const f =
  <T,>(x: T): T => x

export function g(): void {}
`,
			want: []string{"f 1-2 -", "g 4-4 -"},
		},
		{
			name: "C++: an object constructed with arguments, a macro's block",
			path: "lock.cc",
			src: `void Store::put(int k)
{
	std::lock_guard<std::mutex> lock(mu);
	FWD(PushBool) {
		push(k);
	}
}

int after() { return 1; }
`,
			want:  []string{"put 1-7 -", "after 9-9 -"},
			calls: []string{"push"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Extract(context.Background(), tt.path, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range f.Entities {
				parent := "-"
				if e.Parent >= 0 {
					parent = f.Entities[e.Parent].Name
				}
				got = append(got, fmt.Sprintf("%s %d-%d %s", e.Name, e.StartLine, e.EndLine, parent))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("entities = %q, want %q", got, tt.want)
			}
			var calls []string
			for _, r := range f.Refs {
				if r.Kind == EdgeCalls && r.From == 0 {
					calls = append(calls, r.Name)
				}
			}
			slices.Sort(calls)
			if !slices.Equal(calls, tt.calls) {
				t.Errorf("calls from the first function = %q, want %q", calls, tt.calls)
			}
		})
	}
}

// The tree kept for the next incremental parse is the parse of the text,
// not of its rewrite: parsed again after an edit elsewhere, the file gives
// what a parse from scratch gives, the rewritten macro's call included.
func TestMisreadIncrementalEqualsFresh(t *testing.T) {
	ctx := context.Background()
	src := `static void set_skip_buddy(struct sched_entity *se)
{
	for_each_sched_entity(se)
		cfs_rq_of(se)->skip = se;
}

static void check_preempt_wakeup(struct rq *rq, int wake_flags)
{
	return;
}
`
	added := src + "\nint tail(void) { return 2; }\n"
	x := NewExtractor()
	defer x.Close()
	_, tree, err := x.ExtractIncremental(ctx, "fair.c", nil, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	end := sitter.Point{Row: uint32(strings.Count(src, "\n"))}
	EditTree(tree, sitter.EditInput{StartIndex: uint32(len(src)), OldEndIndex: uint32(len(src)), NewEndIndex: uint32(len(added)),
		StartPoint: end, OldEndPoint: end, NewEndPoint: sitter.Point{Row: uint32(strings.Count(added, "\n"))}})
	got, tree2, err := x.ExtractIncremental(ctx, "fair.c", tree, []byte(added))
	tree.Close()
	if err != nil {
		t.Fatal(err)
	}
	tree2.Close()
	want, err := Extract(ctx, "fair.c", []byte(added))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := outline(got), outline(want); !slices.Equal(g, w) {
		t.Errorf("incremental: %q\nfrom scratch: %q", g, w)
	}
}

// outline lists a file's entities and references for comparison.
func outline(f *File) []string {
	var out []string
	for _, e := range f.Entities {
		out = append(out, fmt.Sprintf("%s %s %d-%d %d", e.Kind, e.QualName, e.StartLine, e.EndLine, e.Parent))
	}
	for _, r := range f.Refs {
		out = append(out, fmt.Sprintf("%s %d %s.%s", r.Kind, r.From, r.Qualifier, r.Name))
	}
	slices.Sort(out)
	return out
}
