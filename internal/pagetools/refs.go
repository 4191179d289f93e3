package pagetools

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A page's schema is untrusted, and a validator that follows a $ref back
// to where it started recurses until the goroutine's stack overflows: a
// fatal error, not a panic, that would end the daemon. checkRefs admits
// only references it can follow itself — local JSON pointers ("#" or
// "#/…") in a schema with no $id below its root and no dynamic or
// recursive references — and refuses any whose targets lead back to a
// reference already on the way (recursive schemas, which page tools have
// no use for). Without such a cycle the references form a finite acyclic
// graph, so every validation ends.

// maxRefs bounds the references of one schema (the cycle check is
// quadratic in them); maxUnfold bounds the schemas its references unfold
// to (each reference counts its target's references, so a few that each
// name another twice cannot make one check take 2^n steps).
const (
	maxRefs   = 256
	maxUnfold = 4096
)

type ref struct {
	at     []string // where the $ref is (JSON pointer tokens)
	target []string // what it points at
}

func checkRefs(doc any) error {
	var refs []ref
	var walk func(v any, at []string) error
	walk = func(v any, at []string) error {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range []string{"$dynamicRef", "$recursiveRef", "$dynamicAnchor", "$recursiveAnchor"} {
				if _, ok := x[k]; ok {
					return fmt.Errorf("%s is not supported in a page tool's schema", k)
				}
			}
			if _, ok := x["$id"]; ok && len(at) > 0 {
				return errors.New("$id below the schema's root is not supported in a page tool's schema")
			}
			if r, ok := x["$ref"]; ok {
				s, _ := r.(string)
				target, err := pointer(s)
				if err != nil {
					return err
				}
				if len(refs) == maxRefs {
					return fmt.Errorf("more than %d $ref", maxRefs)
				}
				refs = append(refs, ref{at: clone(at), target: target})
			}
			for k, e := range x {
				if err := walk(e, append(at, k)); err != nil {
					return err
				}
			}
		case []any:
			for i, e := range x {
				if err := walk(e, append(at, strconv.Itoa(i))); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(doc, nil); err != nil {
		return err
	}
	return refCycle(refs)
}

// pointer reads a $ref that must be "#" or "#/" and a JSON pointer.
func pointer(s string) ([]string, error) {
	if s == "#" {
		return nil, nil
	}
	rest, ok := strings.CutPrefix(s, "#/")
	if !ok || strings.Contains(rest, "%") { // percent-escapes: the validator may decode them, this check would not
		return nil, fmt.Errorf("$ref %.80q: a page tool's schema may refer only inside itself, as \"#/…\"", s)
	}
	toks := strings.Split(rest, "/")
	for i, t := range toks {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		toks[i] = t
	}
	return toks, nil
}

// refCycle reports a reference reachable from itself: following a
// reference validates its target's subtree, which holds the references
// under it.
func refCycle(refs []ref) error {
	next := make([][]int, len(refs))
	for i, r := range refs {
		for j, s := range refs {
			if within(s.at, r.target) {
				next[i] = append(next[i], j)
			}
		}
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]int, len(refs))
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = onPath
		for _, j := range next[i] {
			if state[j] == onPath || state[j] == unseen && visit(j) {
				return true
			}
		}
		state[i] = done
		return false
	}
	for i := range refs {
		if state[i] == unseen && visit(i) {
			return errors.New("its $ref leads back to itself (a recursive schema), which Gasoline does not follow")
		}
	}
	// Acyclic: count what each reference unfolds to, saturating.
	unfold := make([]int, len(refs))
	var count func(i int) int
	count = func(i int) int {
		if unfold[i] == 0 {
			n := 1
			for _, j := range next[i] {
				n = min(n+count(j), maxUnfold+1)
			}
			unfold[i] = n
		}
		return unfold[i]
	}
	total := 0
	for i := range refs {
		if total = min(total+count(i), maxUnfold+1); total > maxUnfold {
			return fmt.Errorf("its $refs unfold to more than %d schemas", maxUnfold)
		}
	}
	return nil
}

// within reports whether path at lies in the subtree at root.
func within(at, root []string) bool {
	if len(at) < len(root) {
		return false
	}
	for i := range root {
		if at[i] != root[i] {
			return false
		}
	}
	return true
}

func clone(s []string) []string { return append([]string(nil), s...) }
