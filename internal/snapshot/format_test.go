package snapshot

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rec builds walker records from "depth|role|name|attrs|ref|text" rows.
func rec(rows ...string) string {
	for i, r := range rows {
		rows[i] = strings.ReplaceAll(r, "|", "\t")
	}
	return strings.Join(rows, "\n")
}

func mustParse(t *testing.T, s string) []*Node {
	t.Helper()
	n, err := parseRecords(s)
	require.NoError(t, err)
	return n
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name    string
		records string
		opts    Options
		want    string
	}{
		{
			name:    "role, name, states, ref and value",
			records: rec(`0|textbox|Email|required focused|3|ada@example.com`, `0|checkbox|I "agree"|checked|4|`, `0|heading|Title|level=1|5|`),
			want:    "textbox \"Email\" [required] [focused] [e3]: ada@example.com\ncheckbox \"I \\\"agree\\\"\" [checked] [e4]\nheading \"Title\" [level=1] [e5]\n",
		},
		{
			name:    "indented by depth; text runs",
			records: rec(`0|navigation|Main||1|`, `1|list|||0|`, `2|listitem|||0|`, `3|link|Home||2|`, `2|listitem|||0|Plain item`, `0|text|||0|Hello world`),
			want:    "navigation \"Main\" [e1]\n list\n  link \"Home\" [e2]\n  listitem: Plain item\ntext: Hello world\n",
		},
		{
			name:    "a name taken from the children prints only with no children",
			records: rec(`0|heading|Espresso grinder|level=3 nfc|0|`, `1|link|Espresso grinder||7|`, `0|button|Save||8|`),
			want:    "heading [level=3]\n link \"Espresso grinder\" [e7]\nbutton \"Save\" [e8]\n",
		},
		{
			name: "simple table rows print on one line",
			records: rec(`0|table|Orders||1|`,
				`1|row|||0|`, `2|columnheader|Order||0|`, `2|columnheader|Customer||0|`,
				`1|row|||0|`, `2|cell|#1||0|`, `2|cell|Ada|nfc|0|`, `3|link|Ada||2|`,
				`1|row|||0|`, `2|cell|#2||0|`, `2|cell|||0|`, `3|button|Edit||3|`, `3|button|Delete||4|`),
			want: "table \"Orders\" [e1]\n row: Order | Customer\n row: #1 | link \"Ada\" [e2]\n" +
				" row\n  cell \"#2\"\n  cell\n   button \"Edit\" [e3]\n   button \"Delete\" [e4]\n",
		},
		{
			name:    "limit cuts and says how to get the rest",
			records: rec(`0|main|||0|`, `1|button|A||1|`, `1|button|B||2|`, `1|button|C||3|`),
			opts:    Options{Limit: 2},
			want:    "main\n button \"A\" [e1]\n… 2 more nodes; pass limit=4 or a ref as root\n",
		},
		{
			name:    "depth cuts and says how many nodes are deeper",
			records: rec(`0|main|||0|`, `1|list|||0|`, `2|listitem|||0|one`, `2|listitem|||0|two`, `0|button|Go||1|`),
			opts:    Options{Depth: 2},
			want:    "main\n list\nbutton \"Go\" [e1]\n… 2 nodes deeper than depth 2 not shown; pass a larger depth or a ref as root\n",
		},
		{
			name: "interactive_only lists controls flat under their headings",
			records: rec(`0|banner|||0|`, `1|link|Home||1|`, `0|main|||0|`, `1|heading|Orders|level=1|2|`, `1|paragraph|||0|Some text`,
				`1|heading|Products|level=2|3|`, `1|heading|Card|level=3 nfc|0|`, `2|link|Card||4|`, `1|combobox|Plan||5|Pro`, `2|option|Pro|selected|0|`,
				`1|img|Logo||6|`),
			opts: Options{InteractiveOnly: true},
			// "Orders" has no control before the next heading; "Card" is
			// named by its link.
			want: "link \"Home\" [e1]\nheading \"Products\"\nlink \"Card\" [e4]\ncombobox \"Plan\" [e5]: Pro\n",
		},
		{
			name:    "iframe content stays under its iframe in interactive_only",
			records: rec(`0|iframe|Pay||1|`, `1|heading|Card|level=2|2|`, `1|textbox|Number||3|`),
			opts:    Options{InteractiveOnly: true},
			want:    "iframe \"Pay\" [e1]\n heading \"Card\"\n textbox \"Number\" [e3]\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _ := format(mustParse(t, tc.records), tc.opts)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestFormatCounts(t *testing.T) {
	nodes := mustParse(t, rec(`0|main|||0|`, `1|button|A||1|`, `1|button|B||2|`))
	_, shown, total := format(nodes, Options{Limit: 1})
	assert.Equal(t, 1, shown)
	assert.Equal(t, 3, total)
	_, shown, total = format(nodes, Options{})
	assert.Equal(t, 3, shown)
	assert.Equal(t, 3, total)
}

func TestParseRecords(t *testing.T) {
	nodes := mustParse(t, rec(`0|iframe|Pay|remote|4|`, `1|button|OK|disabled nfc|5|`, `0|text|||0|tail`))
	require.Len(t, nodes, 2)
	f := nodes[0]
	assert.True(t, f.remote)
	assert.Equal(t, 4, f.Ref)
	require.Len(t, f.Kids, 1)
	assert.Equal(t, []string{"disabled"}, f.Kids[0].Attrs)
	assert.True(t, f.Kids[0].nameFromKids)
	assert.Equal(t, "tail", nodes[1].Text)

	for _, bad := range []string{"0\tbutton", "x\tbutton\t\t\t\t", "1\tbutton\t\t\t\t", "0\tbutton\t\t\tfoo\t"} {
		_, err := parseRecords(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"a long name here", 8, "a long…"},
		{"ééééé", 3, "éé…"},
		{"anything", 0, "anything"},
	} {
		assert.Equal(t, tc.want, clip(tc.in, tc.max), "clip(%q, %d)", tc.in, tc.max)
	}
}
