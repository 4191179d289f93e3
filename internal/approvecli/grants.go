package approvecli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Grants runs `gasoline-host grants`: every live grant and plan, with its
// id (for revoke), what it covers, where and until when. Only the
// approver credential reads them (the same endpoint as approve).
func Grants(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("usage: gasoline-host grants (no arguments); revoke one with gasoline-host revoke <id>")
	}
	res, err := call(ctx, "GET", "/approvals", nil)
	if err != nil {
		return err
	}
	var l listing
	raw, _ := json.Marshal(res)
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("reading the daemon's answer: %w", err)
	}
	writeGrants(stdout, l, time.Now())
	return nil
}

// Revoke runs `gasoline-host revoke <id>`: it ends a grant (grt_…) or a
// plan (pln_…) at once; the next call it covered asks. Revoking only
// takes permission away, so it needs no terminal.
func Revoke(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) != 1 || !(strings.HasPrefix(args[0], "grt_") || strings.HasPrefix(args[0], "pln_")) {
		return fmt.Errorf("usage: gasoline-host revoke <grt_… or pln_… id>; list them with gasoline-host grants")
	}
	if _, err := call(ctx, "POST", "/grants/"+args[0]+"/revoke", nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked %s\n", args[0])
	return nil
}

// listing is what GET /approvals answers, as far as grants shows it.
type listing struct {
	Grants []struct {
		GrantID   string    `json:"grant_id"`
		Kind      string    `json:"kind"`
		Words     string    `json:"words"`
		ExpiresAt time.Time `json:"expires_at"`
	} `json:"grants"`
	Plans []struct {
		PlanID    string    `json:"plan_id"`
		Intent    string    `json:"intent"`
		Origins   []string  `json:"origins"`
		Actions   []string  `json:"actions"`
		High      []any     `json:"high"`
		Covered   int       `json:"covered"`
		ExpiresAt time.Time `json:"expires_at"`
	} `json:"plans"`
}

func writeGrants(w io.Writer, l listing, now time.Time) {
	left := func(t time.Time) string {
		if t.IsZero() {
			return "until the session ends"
		}
		return "for " + t.Sub(now).Round(time.Second).String()
	}
	if len(l.Plans) == 0 && len(l.Grants) == 0 {
		fmt.Fprintln(w, "no live plans or grants: every change an agent asks for waits for you")
		return
	}
	for _, p := range l.Plans {
		fmt.Fprintf(w, "%s  plan %s: %q on %s; %s; %d high-risk items ticked; %d calls covered\n", p.PlanID, left(p.ExpiresAt),
			printable(p.Intent), strings.Join(p.Origins, ", "), strings.Join(p.Actions, ", "), len(p.High), p.Covered)
	}
	for _, g := range l.Grants {
		fmt.Fprintf(w, "%s  grant %s: %s\n", g.GrantID, left(g.ExpiresAt), printable(g.Words))
	}
}
