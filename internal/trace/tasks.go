package trace

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// The main thread: its long tasks and the scripts behind them, INP, and
// where the network and main-thread time went (render-blocking requests,
// third parties, scripts).

// thread is the renderer main thread the insights read.
type thread struct{ pid, tid int64 }

// mainThread is the page's renderer main thread (CrRendererMain of the
// navigation's process; without a navigation, the busiest one).
func mainThread(evs []Event, n *nav) thread {
	mains := map[thread]bool{}
	for i := range evs {
		e := &evs[i]
		if e.Name != "thread_name" {
			continue
		}
		var a struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(e.Args, &a) == nil && a.Name == "CrRendererMain" {
			mains[thread{e.Pid, e.Tid}] = true
		}
	}
	if n != nil {
		for t := range mains {
			if t.pid == n.pid {
				return t
			}
		}
	}
	busy := map[thread]float64{}
	for i := range evs {
		e := &evs[i]
		if t := (thread{e.Pid, e.Tid}); e.Name == "RunTask" && mains[t] {
			busy[t] += e.Dur
		}
	}
	var best thread
	for t, d := range busy {
		if d > busy[best] || (d == busy[best] && (t.pid < best.pid || best.pid == 0)) {
			best = t
		}
	}
	return best
}

func (t thread) has(e *Event) bool { return e.Pid == t.pid && e.Tid == t.tid }

// longTask is the threshold of a long task.
const longTask = 50e3

// scriptActivities are the main-thread events that run a script.
var scriptActivities = map[string]bool{
	"EvaluateScript": true, "FunctionCall": true, "TimerFire": true, "EventDispatch": true,
	"FireAnimationFrame": true, "v8.compile": true, "v8.compileModule": true,
}

type scriptData struct {
	URL      string `json:"url"`
	Function string `json:"functionName"`
}

// tasks fills the long tasks, each with the script activity that took
// most of it.
func (r *Report) tasks(evs []Event, main thread) {
	var long []*Event
	for i := range evs {
		e := &evs[i]
		if e.Name == "RunTask" && e.Ph == "X" && main.has(e) && e.Dur > longTask && e.Ts >= r.navTs {
			long = append(long, e)
			r.BlockingMS += ms(e.Dur - longTask)
		}
	}
	r.LongTaskCount = len(long)
	sort.SliceStable(long, func(i, j int) bool { return long[i].Dur > long[j].Dur })
	for _, t := range long[:min(len(long), 5)] {
		lt := LongTask{StartMS: r.at(t.Ts), DurationMS: ms(t.Dur)}
		var top *Event
		for i := range evs {
			e := &evs[i]
			if e.Ts < t.Ts || e.Ts > t.end() {
				continue
			}
			if scriptActivities[e.Name] && main.has(e) && e.Ph == "X" && (top == nil || e.Dur > top.Dur) {
				top = e
			}
		}
		if top != nil {
			var d scriptData
			top.data(&d)
			lt.Script, lt.Function, lt.Activity = d.URL, d.Function, top.Name
		}
		r.LongTasks = append(r.LongTasks, lt)
	}
	r.BlockingMS = ms(r.BlockingMS * 1000)
}

// inp is the slowest interaction (EventTiming with an interactionId).
func (r *Report) inp(evs []Event, main thread) {
	type timing struct {
		Duration        float64 `json:"duration"`
		InteractionID   int64   `json:"interactionId"`
		Type            string  `json:"type"`
		Node            int64   `json:"nodeId"`
		NodeName        string  `json:"nodeName"`
		TimeStamp       float64 `json:"timeStamp"`
		ProcessingStart float64 `json:"processingStart"`
		ProcessingEnd   float64 `json:"processingEnd"`
	}
	worst := map[int64]timing{}
	for i := range evs {
		e := &evs[i]
		if e.Name != "EventTiming" || e.Ph != "b" || (main.pid != 0 && e.Pid != main.pid) {
			continue
		}
		var d timing
		if !e.data(&d) || d.InteractionID <= 0 {
			continue
		}
		if w, ok := worst[d.InteractionID]; !ok || d.Duration > w.Duration {
			worst[d.InteractionID] = d
		}
	}
	if len(worst) == 0 {
		return
	}
	var all []timing
	for _, d := range worst {
		all = append(all, d)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Duration > all[j].Duration })
	// Past 50 interactions INP skips the worst one in 50 (web.dev/inp).
	d := all[min(len(all)/50, len(all)-1)]
	r.INP = &INP{MS: d.Duration, Type: d.Type, Interactions: len(all), Node: d.Node, NodeName: d.NodeName,
		InputDelay:   round1(d.ProcessingStart - d.TimeStamp),
		Processing:   round1(d.ProcessingEnd - d.ProcessingStart),
		Presentation: round1(d.TimeStamp + d.Duration - d.ProcessingEnd)}
}

func round1(v float64) float64 { return ms(v * 1000) }

// network fills the render-blocking requests, the third parties and the
// heaviest scripts.
func (r *Report) network(evs []Event, main thread, reqs []*request, n *nav) {
	site := ""
	if n != nil {
		site = siteOf(n.url)
	} else if len(reqs) > 0 {
		site = siteOf(reqs[0].URL)
	}
	for _, q := range reqs {
		if (q.RenderBlocking == "blocking" || q.RenderBlocking == "in_body_parser_blocking") && q.Finish > 0 && q.Start >= r.navTs &&
			(n == nil || q.ID != n.id) && len(r.RenderBlocking) < 5 {
			r.RenderBlocking = append(r.RenderBlocking, Request{URL: q.URL, Type: q.Type, StartMS: r.at(q.Start), DurationMS: ms(q.Finish - q.Start), Bytes: q.Bytes})
		}
	}
	byURL := scriptTime(evs, main)
	bytes := map[string]int64{}
	parties := map[string]*Party{}
	for _, q := range reqs {
		bytes[q.URL] += q.Bytes
		if s := siteOf(q.URL); s != "" && s != site {
			p := parties[s]
			if p == nil {
				p = &Party{Site: s}
				parties[s] = p
			}
			p.Requests++
			p.Bytes += q.Bytes
		}
	}
	for u, d := range byURL {
		if s := siteOf(u); s != "" && s != site && parties[s] != nil {
			parties[s].MainThreadMS += d
		}
		third := siteOf(u) != site
		r.Scripts = append(r.Scripts, Script{URL: u, MainThreadMS: ms(d), Bytes: bytes[u], ThirdParty: third})
	}
	sort.Slice(r.Scripts, func(i, j int) bool {
		if r.Scripts[i].MainThreadMS != r.Scripts[j].MainThreadMS {
			return r.Scripts[i].MainThreadMS > r.Scripts[j].MainThreadMS
		}
		return r.Scripts[i].URL < r.Scripts[j].URL
	})
	r.Scripts = r.Scripts[:min(len(r.Scripts), 5)]
	for _, p := range parties {
		p.MainThreadMS = ms(p.MainThreadMS)
		r.ThirdParties = append(r.ThirdParties, *p)
	}
	sort.Slice(r.ThirdParties, func(i, j int) bool {
		a, b := r.ThirdParties[i], r.ThirdParties[j]
		if a.MainThreadMS != b.MainThreadMS {
			return a.MainThreadMS > b.MainThreadMS
		}
		if a.Bytes != b.Bytes {
			return a.Bytes > b.Bytes
		}
		return a.Site < b.Site
	})
	r.ThirdParties = r.ThirdParties[:min(len(r.ThirdParties), 5)]
}

// scriptTime sums, per script URL, the main-thread time of its outermost
// script activities (a function called from inside another script's is
// counted once, in the outer one).
func scriptTime(evs []Event, main thread) map[string]float64 {
	out := map[string]float64{}
	var outerEnd float64
	for i := range evs {
		e := &evs[i]
		if !scriptActivities[e.Name] || e.Ph != "X" || !main.has(e) || e.Ts < outerEnd {
			continue
		}
		var d scriptData
		if !e.data(&d) || d.URL == "" || !strings.Contains(d.URL, "://") {
			continue
		}
		out[d.URL] += e.Dur
		outerEnd = e.end()
	}
	return out
}

// siteOf is a URL's site: its registrable domain (example.co.uk), or its
// host for an IP address or a single-label name.
func siteOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	h := u.Hostname()
	if s, err := publicsuffix.EffectiveTLDPlusOne(h); err == nil {
		return s
	}
	return h
}
