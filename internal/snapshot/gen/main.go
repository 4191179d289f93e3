// Command gen writes testdata/pages/large.html: a deterministic ~3,000-element
// admin dashboard (navigation, a sidebar, an orders table with hundreds of
// rows, product cards, an activity feed, forms, disclosure widgets, a
// toolbar of 60 toggle buttons "Tool 1".."Tool 60", a hidden dialog and a
// footer) for measuring snapshots, snapshot search and snapshot diffs. It
// uses no external resources, so every run and every measurement sees the
// same page.
//
//	go run ./internal/snapshot/gen > testdata/pages/large.html
package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"os"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	page(w)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// rng is a tiny deterministic generator (an LCG), so the page never changes.
type rng uint64

func (r *rng) n(k int) int {
	*r = *r*6364136223846793005 + 1442695040888963407
	return int(uint64(*r)>>33) % k
}

func (r *rng) pick(s []string) string { return s[r.n(len(s))] }

var (
	first   = []string{"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Ken", "Margaret", "Linus", "Radia", "Frances", "John", "Sophie", "Tim", "Hedy", "Dennis"}
	last    = []string{"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Thompson", "Hamilton", "Torvalds", "Perlman", "Allen", "Backus", "Wilson", "Berners-Lee", "Lamarr", "Ritchie"}
	status  = []string{"Paid", "Pending", "Shipped", "Refunded", "Cancelled"}
	product = []string{"Espresso grinder", "Pour-over kettle", "Ceramic mug", "Cold brew jar", "Milk frother", "Tamper", "Scale", "Filter papers", "Bean canister", "Moka pot", "Dripper", "Knock box"}
	events  = []string{"created an order", "updated a shipping address", "left a review", "requested a refund", "opened a ticket", "changed a password"}
	topics  = []string{"Overview", "Sales", "Customers", "Catalog", "Marketing", "Settings"}
)

func page(w io.Writer) {
	r := rng(42)
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Gasoline e2e: large dashboard</title>
<style>
body{font:14px sans-serif;margin:0}.wrap{display:flex}.side{width:220px}.main{flex:1;padding:8px}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.grid{display:grid;grid-template-columns:repeat(4,1fr);gap:8px}.badge{padding:0 4px;border-radius:4px}
.modal{display:none}.cols{display:flex;gap:24px}
</style>
</head>
<body>
<header class="top"><div class="bar"><a href="/" class="logo"><img src="data:," alt="Gasoline Coffee" width="24" height="24"></a>
<nav aria-label="Primary"><ul class="menu">
`)
	for _, t := range []string{"Dashboard", "Orders", "Products", "Customers", "Reports", "Discounts", "Shipping", "Inventory", "Analytics", "Messages", "Help", "Status"} {
		p(`<li class="menu-item"><a href="#%s"><span class="icon" aria-hidden="true">•</span><span>%s</span></a></li>`+"\n", t, t)
	}
	p(`</ul></nav>
<form role="search" class="search"><div class="field"><input type="search" name="q" placeholder="Search orders, customers…" aria-label="Search"><button type="submit">Search</button></div></form>
<div class="user"><button type="button" aria-haspopup="menu" aria-expanded="false">Account</button></div>
</div></header>
<div class="wrap">
<aside class="side"><nav aria-label="Sections">
`)
	for _, t := range topics {
		p("<div class=\"group\"><h3 class=\"group-title\">%s</h3><ul>\n", t)
		for i := range 8 {
			p(`<li><a href="#%s-%d"><span>%s view %d</span></a></li>`+"\n", t, i, t, i+1)
		}
		p("</ul></div>\n")
	}
	p(`</nav></aside>
<main class="main">
<nav aria-label="Breadcrumb"><ol><li><a href="#home">Home</a></li><li><a href="#sales">Sales</a></li><li><a href="#orders">Orders</a></li><li><span aria-current="page">All orders</span></li></ol></nav>
<h1>Orders</h1>
<div role="tablist" aria-label="Order views">
<button role="tab" aria-selected="true">All</button><button role="tab" aria-selected="false">Open</button><button role="tab" aria-selected="false">Shipped</button><button role="tab" aria-selected="false">Returns</button>
</div>
<section aria-labelledby="orders-h"><div class="section-head"><h2 id="orders-h">Recent orders</h2>
<form class="filters"><div class="row"><label>Status <select name="status"><option>Any</option>`)
	for _, s := range status {
		p("<option>%s</option>", s)
	}
	p(`</select></label><label>From <input type="date" name="from"></label><label><input type="checkbox" name="mine"> Only mine</label><button type="submit">Apply</button></div></form></div>
<div class="table-wrap"><table class="orders"><caption>Orders from the last 30 days</caption>
<thead><tr><th>Order</th><th>Customer</th><th>Email</th><th>Date</th><th>Status</th><th>Total</th></tr></thead>
<tbody>
`)
	for i := range 180 {
		f, l := r.pick(first), r.pick(last)
		p(`<tr><td>#%d</td><td><div class="cell"><a href="#customer-%d">%s %s</a></div></td><td>%s.%s@example.com</td><td><time>2025-%02d-%02d</time></td><td><span class="badge">%s</span></td><td>$%d.%02d</td></tr>`+"\n",
			10400+i, i, f, l, lower(f), lower(l), 1+r.n(12), 1+r.n(28), r.pick(status), 5+r.n(400), r.n(100))
	}
	p(`</tbody></table></div>
<nav aria-label="Pagination"><ul class="pages"><li><a href="#p-prev" aria-label="Previous page">‹</a></li>`)
	for i := range 10 {
		p(`<li><a href="#p%d">%d</a></li>`, i+1, i+1)
	}
	p(`<li><a href="#p-next" aria-label="Next page">›</a></li></ul></nav></section>
<section aria-labelledby="products-h"><h2 id="products-h">Popular products</h2><div class="grid">
`)
	for i := range 24 {
		name := product[i%len(product)]
		p(`<article class="card"><div class="media"><img src="data:," alt="%s photo" width="40" height="40"></div><div class="body"><h3><a href="#product-%d">%s %d</a></h3><p class="desc">Hand-picked %s, ships in %d days.</p><div class="foot"><span class="price">$%d</span><button type="button" class="btn"><svg aria-hidden="true" width="8" height="8"><circle r="4" cx="4" cy="4"/></svg>Add to cart</button></div></div></article>`+"\n",
			html.EscapeString(name), i, name, i+1, lower(name), 1+r.n(9), 9+r.n(200))
	}
	p(`</div></section>
<section aria-labelledby="activity-h"><h2 id="activity-h">Activity</h2><ul class="feed">
`)
	for i := range 60 {
		p(`<li class="event"><div class="line"><span class="when">%dm ago</span> <a href="#customer-%d">%s %s</a> <span class="what">%s</span></div></li>`+"\n",
			1+i*3, r.n(200), r.pick(first), r.pick(last), r.pick(events))
	}
	p(`</ul></section>
<section aria-labelledby="faq-h"><h2 id="faq-h">Questions</h2>
`)
	for i := range 8 {
		p(`<details><summary>How do I handle case %d?</summary><div class="answer"><p>Open the order, choose an action and confirm. Case %d is covered by the standard policy.</p></div></details>`+"\n", i+1, i+1)
	}
	p(`</section>
<section aria-labelledby="tools-h"><h2 id="tools-h">Tools</h2><ul class="tools">
`)
	for i := range 60 {
		p(`<li><button type="button" class="tool" aria-pressed="false">Tool %d</button></li>`+"\n", i+1)
	}
	p(`</ul></section>
<section aria-labelledby="news-h"><h2 id="news-h">Newsletter</h2><form class="news"><div class="field"><label for="news-email">Email address</label><input id="news-email" type="email" required placeholder="you@example.com"></div><div class="field"><input id="news-terms" type="checkbox"><label for="news-terms">I accept the terms</label></div><button type="submit">Subscribe</button><p class="sr-only">We never share your address.</p></form></section>
</main></div>
<div class="modal" role="dialog" aria-label="Edit order"><div class="modal-body">
`)
	for i := range 30 {
		p(`<div class="field"><label>Field %d <input name="f%d"></label></div>`+"\n", i+1, i)
	}
	p(`<button>Save</button><button>Cancel</button></div></div>
<footer class="foot"><div class="cols">
`)
	for _, t := range []string{"Company", "Support", "Legal", "Community"} {
		p("<div class=\"col\"><h4>%s</h4><ul>", t)
		for i := range 10 {
			p(`<li><a href="#%s-%d">%s link %d</a></li>`, lower(t), i, t, i+1)
		}
		p("</ul></div>\n")
	}
	p(`</div><p class="copy">© 2025 Gasoline Coffee. All rights reserved.</p></footer>
<script>
document.addEventListener('click', (e) => {
  const b = e.target.closest('.tool');
  if (b) b.setAttribute('aria-pressed', String(b.getAttribute('aria-pressed') !== 'true'));
});
</script>
</body>
</html>
`)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			b[i] = c + 32
		case c == ' ':
			b[i] = '-'
		}
	}
	return string(b)
}
