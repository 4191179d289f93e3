package untrusted

import (
	"cmp"
	"regexp"
	"slices"
	"sync"
)

// Match is one instruction-like passage a Classifier found in a text:
// byte offsets [Start, End) and why it reads like an instruction.
type Match struct {
	Start, End int
	Reason     string
}

// Classifier finds instruction-like passages in one passage of page text
// (a line, a name, a value). It must be safe for concurrent use, return
// matches within the text, and never fail: Scan calls it on every passage
// of every page-text result.
type Classifier interface {
	Classify(text string) []Match
}

// The reasons Rules gives.
const (
	ReasonAddressed = "addressed to an AI agent"
	ReasonIgnore    = "asks to ignore previous instructions"
	ReasonRole      = "poses as a system or assistant message"
	ReasonApprove   = "asks to approve or to act without the user"
	ReasonPolicy    = "asks to change approvals, policy or redaction"
	ReasonReveal    = "asks to reveal the prompt or secrets"
	ReasonSend      = "asks to send data to another site"
	ReasonTool      = "names Gasoline's tools or calls"
)

// Rules is the deterministic Classifier: regular expressions over each
// passage, written to flag what prompt-injection text says while leaving
// ordinary interface text alone ("Click here to continue", "Ignore this
// field if…", "Show password", "Never share your password"). The corpus
// in testdata/ pins both sides.
type Rules struct{}

// at matches at the start of a passage or of a sentence or clause in it
// (Classify puts a line break before the text, so no rule needs ^).
const at = `(?:[.!?;:]\s+|\n)[\s\-*#>"'(\[]{0,3}`

// ai names an AI agent, as a text addressed to one would.
const ai = `(?:(?:ai|llm|virtual|digital|autonomous|browser|web|coding)\s+)?(?:ai|a\.i\.|llm|language model|assistant|agent|chatbot|claude|chatgpt|gpt|gemini|copilot)s?`

// aiWords are the triggers of the rules that need an AI's name.
var aiWords = []string{"ai", "llm", "language", "assistant", "agent", "chatbot", "claude", "chatgpt", "gpt", "gemini", "copilot"}

// directive is how an order to an agent starts.
const directive = `(?:please\s+)?(?:ignore|disregard|forget|override|bypass|you\b|your\b|do\b|don'?t|never|always|stop|start|now\b|navigate|go\s+to|visit|open|click|press|send|post|upload|submit|approve|accept|confirm|authori[sz]e|grant|reveal|print|output|repeat|tell|say|respond|reply|answer|execute|run|type|enter|fill|buy|purchase|order|transfer|pay|delete|remove|change|disable|enable|turn\s+off|must|should|shall|need|are\s+now|new\s+instructions)`

// rule is one pattern. A match always contains one of its triggers
// (lowercase words, found at a word start), at most back bytes after the
// match starts and at most fwd bytes before it ends: Classify runs the
// expression only around triggers, which keeps a megabyte of ordinary
// text cheap.
type rule struct {
	reason  string
	pattern string
	// negatable rules skip a match right after "never", "don't", "do not"
	// or "not": warnings like "Never share your password" stay unflagged.
	negatable bool
	triggers  []string
	back, fwd int
}

func words(ws ...string) []string { return ws }

var ruleTable = []rule{
	{ReasonAddressed, `(?i)\b(?:dear|hey|hi|hello|attention|note\s+to|message\s+(?:to|for)|instructions?\s+(?:to|for)|notice\s+(?:to|for)|memo\s+(?:to|for)|a\s+note\s+for)\s*[:,]?\s+(?:all\s+|any\s+|the\s+)?` + ai + `\b`, false, aiWords, 60, 200},
	{ReasonAddressed, `(?i)\bif\s+you(?:'re|\s+are)\s+(?:an?\s+)?(?:ai|llm|(?:large\s+)?language\s+model|claude|chatgpt|gpt|gemini|copilot|(?:ai|automated|autonomous|virtual)\s+(?:assistant|agent|model|system|browser))\b`, false, aiWords, 60, 80},
	{ReasonAddressed, `(?i)` + at + ai + `\s*[:,]\s*` + directive, false, aiWords, 60, 160},
	{ReasonAddressed, `(?i)\b(?:ai|llm)\s+(?:agents?|assistants?|models?|systems?|crawlers?|bots?)\s+(?:reading\s+this|must|should|shall|are\s+(?:instructed|required|told)|need\s+to|have\s+to)\b[^.!?\n]{0,40}?\b` + directive, false, aiWords, 20, 200},
	{ReasonIgnore, `(?i)\b(?:ignore|disregard|forget|override|bypass|abandon|discard)\b[^.!?\n]{0,40}?\b(?:previous|prior|preceding|above|earlier|former|original|initial|existing|all|any|every|your|these|those|system|safety)\b[^.!?\n]{0,30}?\b(?:instructions?|prompts?|directives?|guidelines?|guardrails?|constraints?|programming|rules)\b`, false, words("ignore", "disregard", "forget", "override", "bypass", "abandon", "discard"), 5, 200},
	{ReasonIgnore, `(?i)\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:of\s+)?(?:the\s+|everything\s+)?(?:above|preceding|previous)\s*(?:and|,)`, false, words("ignore", "disregard", "forget"), 5, 80},
	{ReasonIgnore, `(?i)\b(?:new|updated|revised|real|actual|true|secret|hidden)\s+(?:system\s+)?instructions?\s*(?::|follow|below|are\b)`, false, words("instruction"), 40, 60},
	{ReasonIgnore, `(?i)\b(?:from\s+now\s+on,?\s+you\s+(?:will|must|are|should|shall)|you\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|jailbroken|unrestricted|god|admin|debug)\s+mode|your\s+(?:new|real|actual|true)\s+(?:task|role|goal|objective|purpose|instructions?|job)\s+(?:is|are)\b)`, false, words("now", "task", "role", "goal", "objective", "purpose", "instruction", "job"), 40, 80},
	{ReasonRole, `(?i)` + at + `(?:system|assistant|developer)(?:\s+(?:message|prompt|note|instructions?|override))?\s*[:\]]\s*(?:` + directive + `|i\s+(?:will|shall|must|have\s+to|am\s+going\s+to)\b)`, false, words("system", "assistant", "developer"), 30, 180},
	{ReasonRole, at + `SYSTEM\s*:`, false, words("system"), 30, 20},
	{ReasonRole, `(?i)<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[/?INST\]|<</?SYS>>|</?(?:system|assistant)(?:\s[^>]*)?>|(?:^|\n)\s*#{2,}\s*(?:system|instructions?)\s*:?\s*(?:$|\n)`, false, words("im_start", "im_end", "endoftext", "inst", "sys", "system", "assistant", "user", "instruction"), 20, 60},
	{ReasonApprove, `(?i)\bauto(?:matically)?[\s-]*(?:approve|accept|confirm|allow)\s+(?:all|every|any|each|this|the\s+(?:pending|next)|pending|future|requests?|prompts?|actions?|purchases?|transfers?|dialogs?|everything)\b|\bapprove\b[^.!?\n]{0,40}?(?:without\s+(?:asking|confirmation|checking|telling|the\s+user)|\bautomatically\b|on\s+(?:the\s+)?user'?s?\s+behalf|\byourself\b|\ball\s+(?:pending|future|requests|actions|prompts)|\bevery\s+(?:pending\s+)?(?:request|action|prompt)|\bany\s+(?:pending\s+)?(?:request|prompt|dialog))`, false, words("approve"), 60, 120},
	{ReasonApprove, `(?i)\b(?:without|never|do\s+not|don'?t|no\s+need\s+to)\s+(?:ask(?:ing)?|wait(?:ing)?\s+for|tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|consult(?:ing)?|involv(?:e|ing)|check(?:ing)?\s+with|confirm(?:ing)?\s+with)\s+(?:the\s+|your\s+)?(?:user|human|owner|operator)s?\b`, false, words("user", "human", "owner", "operator"), 80, 20},
	{ReasonApprove, `(?i)\bgasoline\b[^.!?\n]{0,40}?\b(?:approv|polic|redact|panel|permission)`, false, words("gasoline"), 5, 80},
	{ReasonPolicy, `(?i)\b(?:disable|turn\s+off|switch\s+off|deactivate|bypass|remove|relax|lower|weaken|skip|circumvent|change|modify|update|edit|set)\b[^.!?\n]{0,30}?\b(?:redaction|redacting|approval\s+(?:policy|gate|rules?|prompts?|requests?|settings)|safety\s+(?:checks?|rules?|filters?|policy)|guardrails?|content\s+filters?)\b`, false, words("redact", "approval", "safety", "guardrail", "filter"), 80, 40},
	{ReasonReveal, `(?i)\b(?:reveal|print|output|repeat|leak|dump|disclose|display|show|tell\s+me|give\s+me|share|write\s+out|recite|expose)\b[^.!?\n]{0,30}?\b(?:your\s+(?:(?:full|entire|complete|original|initial|hidden|secret|system|developer)\s+)*(?:system\s+prompt|prompt|instructions|rules|configuration|api\s+keys?|secrets?|credentials|context)|the\s+(?:system|initial|hidden|original|developer)\s+(?:prompt|instructions|message)|the\s+(?:user'?s?\s+)?api\s+keys?)\b`, true, words("reveal", "print", "output", "repeat", "leak", "dump", "disclose", "display", "show", "tell", "give", "share", "write", "recite", "expose"), 5, 200},
	{ReasonReveal, `(?i)\bwhat\s+(?:is|are|was|were)\s+your\s+(?:system\s+prompt|(?:initial|original|hidden)\s+(?:prompt|instructions))\b`, false, words("what"), 5, 80},
	{ReasonSend, `(?i)\b(?:send|post|upload|forward|transmit|exfiltrate|submit|email|e-mail|share|copy|paste|append|include|leak|report|beacon)\b[^\n/]{0,60}?\b(?:cookies?|tokens?|credentials?|passwords?|sessions?(?:\s+(?:ids?|tokens?|cookies?))?|api[\s_-]?keys?|secrets?|private\s+keys?|personal\s+(?:data|information|details)|(?:user|customer)'?s?\s+(?:data|information|details|emails?|addresses|history|files|messages)|conversation|chat\s+history|order\s+history|browsing\s+history|local\s?storage|credit\s+card|card\s+(?:numbers?|details))\b[^\n]{0,60}?(?:https?://|\bwww\.|\b[\w.-]+@[\w-]+\.[a-z]{2,}|\b(?:to|at|into|via)\s+(?:this|the|our|my|an?)?\s*(?:url|link|endpoint|server|webhook|site|domain|address))`, true, words("send", "post", "upload", "forward", "transmit", "exfiltrate", "submit", "email", "mail", "share", "copy", "paste", "append", "include", "leak", "report", "beacon"), 5, 400},
	{ReasonSend, `(?i)\b(?:navigate|go|visit|open|load|fetch|request|call)\b[^\n]{0,20}?https?://\S+[?&][\w-]+=(?:\s|$|\{|\$\{|<|\[)`, false, words("http"), 80, 400},
	{ReasonTool, `(?i)\b(?:observe|interact|analyze|generate|configure)\s*[({]\s*\{?\s*"?(?:what|action)"?\s*:|"what"\s*:\s*"(?:execute_js|navigate|click|type|fill_form|policy|redaction|upload)"|\b(?:execute_js|approval_id|describe_capabilities)\b`, false, words("observe", "interact", "analyze", "generate", "configure", "what", "execute_js", "approval_id", "describe_capabilities"), 20, 80},
}

const negation = `(?i)(?:\bnever|\bdon'?t|\bdo\s+not|\bnot|\bno)\s+(?:\w+\s+){0,1}$`

// compiled is the rule table made ready to run: its expressions compiled
// and its triggers indexed.
type compiled struct {
	res      []*regexp.Regexp // ruleTable[i]'s expression
	negation *regexp.Regexp
	index    map[string][]int // each trigger word → the rules it starts
}

// compiledRules compiles the table on first use, not at start: only the
// daemon scans page text, and compiling takes a megabyte and two
// milliseconds that gasoline-host's other modes (the native-messaging
// relay, --mcp, the CLI) would otherwise pay at every start.
var compiledRules = sync.OnceValue(func() *compiled {
	c := &compiled{negation: regexp.MustCompile(negation), index: map[string][]int{}}
	for i, r := range ruleTable {
		c.res = append(c.res, regexp.MustCompile(r.pattern))
		for _, w := range r.triggers {
			c.index[w] = append(c.index[w], i)
		}
	}
	return c
})

// Classify implements Classifier: every rule's matches, in text order,
// overlapping matches merged (the first rule's reason stays).
func (Rules) Classify(text string) []Match {
	t := "\n" + text // every passage starts after a line break
	c := compiledRules()
	var out []Match
	for i, ws := range windows(c, lowerASCII(t)) {
		r := &ruleTable[i]
		for _, w := range ws {
			for _, m := range c.res[i].FindAllStringIndex(t[w[0]:w[1]], -1) {
				start, end := w[0]+m[0], w[0]+m[1]
				if r.negatable && c.negation.MatchString(t[max(0, start-24):start]) {
					continue
				}
				out = append(out, Match{Start: max(0, start-1), End: end - 1, Reason: r.reason})
			}
		}
	}
	return merge(out)
}

// maxSuffix is how many letters a word may add to a trigger and still
// trigger it (agents, instructions, redaction, ignored).
const maxSuffix = 3

// windows returns, per rule, the stretches of low (the lowercased text)
// around its triggers, merged where they overlap: one pass over the words.
func windows(c *compiled, low string) [][][2]int {
	ws := make([][][2]int, len(ruleTable))
	for i := 0; i < len(low); {
		if !isWordByte(low[i]) {
			i++
			continue
		}
		j := i
		for j < len(low) && isWordByte(low[j]) {
			j++
		}
		word := low[i:j]
		for k := 0; k <= maxSuffix && len(word)-k >= 2; k++ {
			for _, ri := range c.index[word[:len(word)-k]] {
				r := &ruleTable[ri]
				w := [2]int{max(0, i-r.back), min(len(low), j+r.fwd)}
				if n := len(ws[ri]); n > 0 && w[0] <= ws[ri][n-1][1] {
					ws[ri][n-1][1] = max(ws[ri][n-1][1], w[1]) // words come in order: merge with the last
				} else {
					ws[ri] = append(ws[ri], w)
				}
			}
		}
		i = j
	}
	return ws
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' }

// merge sorts matches by start and keeps one of each overlapping run (the
// first rule's reason).
func merge(ms []Match) []Match {
	if len(ms) < 2 {
		return ms
	}
	slices.SortStableFunc(ms, func(a, b Match) int { return cmp.Compare(a.Start, b.Start) })
	out := ms[:1]
	for _, m := range ms[1:] {
		last := &out[len(out)-1]
		if m.Start < last.End {
			last.End = max(last.End, m.End)
			continue
		}
		out = append(out, m)
	}
	return out
}
