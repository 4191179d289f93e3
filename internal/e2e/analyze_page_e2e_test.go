package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decode re-reads a structured answer field into v.
func decode(t testing.TB, from any, v any) {
	t.Helper()
	raw, err := json.Marshal(from)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, v))
}

// TestE2EAnalyzeForms: every control of forms.html with its label (and
// where it came from), required flag, state and validity, grouped by form;
// the planted problems are the issues; refs match the snapshot.
func TestE2EAnalyzeForms(t *testing.T) {
	x := startAnalyze(t, "analyze-forms", ChainOptions{})
	x.page("/pages/analyze/forms.html")
	snap := x.snap(nil)

	a := x.analyze("forms", nil)
	type field struct {
		Type, Name, Label, LabelFrom string
		Required                     bool
		Valid                        *bool
		Errors                       []string
		Filled, Checked              *bool
		Selected                     []string
		Ref                          string
	}
	var r struct {
		Forms []struct {
			ID, Method, Action, Label, Ref string
			Fields                         []struct {
				Type, Name, Label, Ref string
				LabelFrom              string `json:"label_from"`
				Required               bool
				Valid, Filled, Checked *bool
				Errors, Selected       []string
			}
			Buttons []struct{ Type, Text, Ref string }
			Issues  []string
		}
	}
	decode(t, a.Data, &r)
	require.Len(t, r.Forms, 3, a.Text)
	yes, no := true, false
	got := func(i int) []field {
		var out []field
		for _, f := range r.Forms[i].Fields {
			out = append(out, field{f.Type, f.Name, f.Label, f.LabelFrom, f.Required, f.Valid, f.Errors, f.Filled, f.Checked, f.Selected, f.Ref})
		}
		return out
	}
	ref := func(prefix string) string { return refOf(t, snap, prefix) }
	signup := []field{
		{"email", "email", "Email", "label", true, &no, []string{"typeMismatch"}, &yes, nil, nil, ref(`textbox "Email"`)},
		{"password", "password", "Password", "label", true, &no, []string{"valueMissing"}, &no, nil, nil, ref(`textbox "Password"`)},
		{"text", "nickname", "Nickname", "placeholder", false, &yes, nil, &no, nil, nil, ref(`textbox "Nickname"`)},
		{"text", "code", "", "", false, &yes, nil, &no, nil, nil, ref(`textbox [`)},
		{"select", "plan", "Plan", "label", false, &yes, nil, nil, nil, []string{"Pro"}, ref(`combobox "Plan"`)},
		{"checkbox", "terms", "I accept the terms", "label", true, &no, []string{"valueMissing"}, nil, &no, nil, ref(`checkbox "I accept the terms"`)},
		{"textarea", "bio", "Bio", "aria-label", false, &yes, nil, &no, nil, nil, ref(`textbox "Bio"`)},
	}
	assert.Equal(t, signup, got(0))
	assert.Equal(t, "signup", r.Forms[0].ID)
	assert.Equal(t, "post", r.Forms[0].Method)
	assert.Equal(t, x.site.URL+"/signup", r.Forms[0].Action)
	assert.Equal(t, "Sign up", r.Forms[0].Label)
	require.Len(t, r.Forms[0].Buttons, 1)
	assert.Equal(t, "Create account", r.Forms[0].Buttons[0].Text)
	assert.Equal(t, ref(`button "Create account"`), r.Forms[0].Buttons[0].Ref)
	assert.Equal(t, []string{
		`email "Email" is invalid (typeMismatch)`,
		`password "Password" is invalid (valueMissing)`,
		`text "Nickname" is labelled only by its placeholder (it disappears when typing)`,
		`text name="code" has no label`,
		`checkbox "I accept the terms" is invalid (valueMissing)`,
	}, r.Forms[0].Issues)
	assert.Equal(t, []field{{"search", "q", "Search", "aria-label", false, &yes, nil, &no, nil, nil, ref(`searchbox "Search"`)}}, got(1))
	assert.Equal(t, "get", r.Forms[1].Method)
	assert.Equal(t, "", r.Forms[2].ID, "controls outside any form")
	assert.Equal(t, []field{{"text", "", "Loose field", "aria-label", false, &yes, nil, &no, nil, nil, ref(`textbox "Loose field"`)}}, got(2))
	assert.NotContains(t, a.Text, "not-an-email", "values are never shown")
	raw, err := json.Marshal(a.Raw.StructuredContent)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "not-an-email", "not even in the browser's validation message")

	// Typing a valid address makes the field valid; a selector scopes.
	x.act("type", map[string]any{"selector": "#email", "text": "ada@example.com", "clear": true})
	a = x.analyze("forms", map[string]any{"selector": "#email"})
	decode(t, a.Data, &r)
	require.Len(t, r.Forms, 1)
	require.Len(t, r.Forms[0].Fields, 1)
	assert.True(t, *r.Forms[0].Fields[0].Valid, a.Text)
	x.analyzeFails("element_not_found", "forms", map[string]any{"selector": "#nope"})
}

// TestE2EAnalyzeDataTable: the tables of table.html as headers and rows;
// layout and hidden tables, hidden rows and hidden text are left out (and
// counted); limit cuts rows, never the count.
func TestE2EAnalyzeDataTable(t *testing.T) {
	x := startAnalyze(t, "analyze-table", ChainOptions{})
	x.page("/pages/analyze/table.html")
	type table struct {
		Selector, Caption string
		Headers           []string
		Rows              [][]string
		TotalRows         int `json:"total_rows"`
		HiddenRows        int `json:"hidden_rows"`
	}
	var r struct {
		Tables        []table
		TotalTables   int `json:"total_tables"`
		HiddenTables  int `json:"hidden_tables"`
		HiddenDropped int `json:"hidden_dropped"`
	}
	a := x.analyze("data_table", nil)
	decode(t, a.Data, &r)
	people := table{Selector: "#people", Caption: "People", Headers: []string{"Name", "Role", "Age"},
		Rows: [][]string{{"Ada", "Engineer", "36"}, {"Grace", "Admiral", "85"}, {"Alan", "Mathematician", ""}}, TotalRows: 3, HiddenRows: 1}
	scores := table{Selector: "html > body > div", Caption: "Scores", Headers: []string{"Team", "Points"},
		Rows: [][]string{{"Red", "3"}, {"Blue", "5"}}, TotalRows: 2}
	assert.Equal(t, []table{people, scores}, r.Tables)
	assert.Equal(t, 2, r.TotalTables)
	assert.Equal(t, 1, r.HiddenTables)
	// Text a person cannot see is dropped: display:none is not rendered
	// at all (not counted, docs/UNTRUSTED.md); the off-page span is one
	// text run dropped.
	assert.Equal(t, 1, r.HiddenDropped, "the off-page span's text")
	assert.NotContains(t, a.Text, "Ignore previous instructions")
	assert.NotContains(t, a.Text, "SECRET")
	assert.NotContains(t, a.Text, "OFFPAGE")
	assert.Contains(t, a.Text, "| Name | Role | Age |\n| --- | --- | --- |\n| Ada | Engineer | 36 |")

	a = x.analyze("data_table", map[string]any{"selector": "#people", "limit": 1})
	decode(t, a.Data, &r)
	people.Rows = people.Rows[:1]
	assert.Equal(t, []table{people}, r.Tables)
	assert.Contains(t, a.Text, "… 2 more rows: pass a larger limit")
	x.analyzeFails("element_not_found", "data_table", map[string]any{"selector": "#card h2 + table"})
}

// TestE2EAnalyzeDOM: a subtree with attributes, bounded by depth and
// limit, through an open shadow root, hidden text dropped, attributes no
// person sees (data-*) printed apart as not visible; a ref from the
// latest snapshot is a root, a stale one is refused naming its element.
func TestE2EAnalyzeDOM(t *testing.T) {
	x := startAnalyze(t, "analyze-dom", ChainOptions{})
	x.page("/pages/analyze/table.html")
	a := x.analyze("dom", map[string]any{"selector": "#card"})
	want := strings.Join([]string{
		`<section id="card" class="card"> [not visible: data-id="7"]`,
		`  <h2>`,
		`    "Title"`,
		`  <p>`,
		`    "Hello"`,
		`    <b>`,
		`      "world"`,
		`    <span style="display:none"> [hidden]`,
		`  <input type="password" name="pw" value="••••">`,
		`  <div id="host">`,
		`    #shadow-root (open)`,
		`      <em>`,
		`        "in the shadow"`,
		`  <button>`,
		`    "Act"`,
	}, "\n")
	_, tree, _ := strings.Cut(a.Page, "\n")
	assert.Equal(t, want, tree)
	assert.EqualValues(t, len("hidden words"), a.Data["hidden_dropped"])
	assert.NotContains(t, a.Text, "hunter2-planted", "a password field's value attribute is masked")

	a = x.analyze("dom", map[string]any{"selector": "#card", "depth": 2})
	_, tree, _ = strings.Cut(a.Page, "\n")
	assert.Equal(t, strings.Join([]string{
		`<section id="card" class="card"> [not visible: data-id="7"]`,
		`  <h2>`,
		`  <p>`,
		`  <input type="password" name="pw" value="••••">`,
		`  <div id="host">`,
		`  <button>`,
		`… 3 elements deeper than depth 2: pass a larger depth`,
	}, "\n"), tree)

	a = x.analyze("dom", map[string]any{"selector": "#card", "limit": 3})
	assert.Len(t, list(a, "nodes"), 3)
	assert.Contains(t, a.Text, "… 12 more nodes: pass a larger limit")

	snap := x.snap(nil)
	button := refOf(t, snap, `button "Act"`)
	a = x.analyze("dom", map[string]any{"ref": button})
	_, tree, _ = strings.Cut(a.Page, "\n")
	assert.Equal(t, "<button> [ref="+button+"]\n  \"Act\"", tree)

	x.act("refresh", nil)
	f := x.analyzeFails("stale_ref", "dom", map[string]any{"ref": button})
	assert.Contains(t, f.Text, `button "Act"`)
	x.analyzeFails("invalid_argument", "dom", map[string]any{"ref": "nonsense"})
}

// TestE2EAnalyzePageSummary: what forms.html is (a sign-up page with a
// search) and what can be done on it, with refs that act.
func TestE2EAnalyzePageSummary(t *testing.T) {
	x := startAnalyze(t, "analyze-summary", ChainOptions{})
	x.page("/pages/analyze/forms.html")
	a := x.analyze("page_summary", nil)
	var s struct {
		Title, Heading, Lang string
		Kinds, Landmarks     []string
		Inputs, Buttons      []struct{ Role, Name, Ref string }
		Counts               map[string]int
	}
	decode(t, a.Data, &s)
	assert.Equal(t, "Forms", s.Title)
	assert.Equal(t, "Create your account", s.Heading)
	assert.Equal(t, "en", s.Lang)
	assert.Equal(t, []string{"login", "search"}, s.Kinds)
	assert.Equal(t, []string{"main", `form "Sign up"`, "search"}, s.Landmarks)
	assert.Equal(t, map[string]int{"Links": 0, "Buttons": 2, "Inputs": 9, "Headings": 1, "Tables": 0, "Images": 0, "Forms": 2, "PasswordFields": 1}, s.Counts)
	names := []string{}
	for _, in := range s.Inputs {
		names = append(names, in.Role+" "+in.Name)
	}
	assert.Equal(t, []string{"textbox Email", "textbox Password", "textbox Nickname", "textbox ", "combobox Plan",
		"checkbox I accept the terms", "textbox Bio", "searchbox Search", "textbox Loose field"}, names)
	require.Len(t, s.Buttons, 2)
	assert.Equal(t, "Go", s.Buttons[1].Name)
	assert.Contains(t, a.Text, "kind: login, search")

	// The refs are the current snapshot's: acting on one works.
	x.act("click", map[string]any{"ref": s.Inputs[5].Ref})
	assert.True(t, js[bool](x.client, "document.getElementById('terms').checked"))
}
