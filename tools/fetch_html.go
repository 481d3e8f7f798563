package tools

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlDropped are elements whose content is never readable text.
var htmlDropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Nav: true, atom.Template: true,
	atom.Svg: true, atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Canvas: true,
	atom.Head: true, atom.Button: true, atom.Select: true,
}

// htmlBlocks maps block elements to the line breaks around them: 2 for a blank line.
var htmlBlocks = map[atom.Atom]int{
	atom.P: 2, atom.H1: 2, atom.H2: 2, atom.H3: 2, atom.H4: 2, atom.H5: 2, atom.H6: 2,
	atom.Pre: 2, atom.Blockquote: 2, atom.Table: 2, atom.Ul: 2, atom.Ol: 2, atom.Dl: 2,
	atom.Figure: 2, atom.Hr: 2, atom.Section: 2, atom.Article: 2, atom.Main: 2,
	atom.Header: 2, atom.Footer: 2, atom.Aside: 2, atom.Form: 2, atom.Fieldset: 2, atom.Details: 2,
	atom.Div: 1, atom.Li: 1, atom.Dt: 1, atom.Dd: 1, atom.Tr: 1, atom.Br: 1, atom.Caption: 1,
	atom.Figcaption: 1, atom.Summary: 1, atom.Address: 1, atom.Tbody: 1, atom.Thead: 1, atom.Tfoot: 1,
}

// htmlText reduces an HTML document to readable text with light Markdown: "#" headings,
// "-" and "1." list items, fenced <pre> blocks, inline `code` and " | " between table
// cells. Links become [text](url) with the URL made absolute against page (and the
// document's <base>), so an agent can follow them; with a nil page they keep only their
// text. When the page marks its main content with <main> (or a single <article>), only
// that part is kept.
func htmlText(data []byte, page *url.URL) string {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return ""
	}
	w := &textWriter{base: documentBase(doc, page)}
	w.walk(contentRoot(doc))
	text := strings.TrimSpace(w.b.String())
	if title := pageTitle(doc); title != "" && !strings.HasPrefix(text, "# "+title) {
		text = "# " + title + "\n\n" + text
	}
	return strings.TrimSpace(text)
}

// contentRoot picks the part of the page to convert.
func contentRoot(doc *html.Node) *html.Node {
	var mains, articles []*html.Node
	var body *html.Node
	var find func(*html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Main:
				mains = append(mains, n)
			case atom.Article:
				articles = append(articles, n)
			case atom.Body:
				body = n
			}
			if htmlDropped[n.DataAtom] {
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	switch {
	case len(mains) == 1:
		return mains[0]
	case len(mains) == 0 && len(articles) == 1:
		return articles[0]
	case body != nil:
		return body
	}
	return doc
}

// pageTitle returns the text of the document's <title>, if any.
func pageTitle(doc *html.Node) string {
	var title string
	var find func(*html.Node) bool
	find = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			title = strings.Join(strings.Fields(b.String()), " ")
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if find(c) {
				return true
			}
		}
		return false
	}
	find(doc)
	return title
}

// documentBase returns the URL relative links resolve against: the page's own, or the
// document's <base href> resolved against it. It is nil when page is.
func documentBase(doc *html.Node, page *url.URL) *url.URL {
	if page == nil {
		return nil
	}
	var href string
	var find func(*html.Node) bool
	find = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Base {
			for _, attr := range n.Attr {
				if attr.Key == "href" {
					href = strings.TrimSpace(attr.Val)
					return true
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if find(c) {
				return true
			}
		}
		return false
	}
	find(doc)
	if href == "" {
		return page
	}
	ref, err := url.Parse(href)
	if err != nil {
		return page
	}
	return page.ResolveReference(ref)
}

// linkTarget returns the absolute http(s) URL an <a> element points to, written so that
// it cannot end a Markdown link early, or "" when it has none worth showing: no base to
// resolve against, no href, a link within the same page, or another scheme (mailto:,
// javascript:, ...).
func (w *textWriter) linkTarget(n *html.Node) string {
	if w.base == nil || w.pre > 0 {
		return ""
	}
	var href string
	for _, attr := range n.Attr {
		if attr.Key == "href" {
			href = strings.TrimSpace(attr.Val)
		}
	}
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	ref, err := url.Parse(href)
	if err != nil {
		return ""
	}
	abs := w.base.ResolveReference(ref)
	if abs.Scheme != "http" && abs.Scheme != "https" {
		return ""
	}
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(abs.String())
}

// textWriter accumulates text, collapsing whitespace as a browser does and turning block
// boundaries into line breaks.
type textWriter struct {
	base   *url.URL // what links resolve against; nil keeps only their text
	link   linkState
	b      strings.Builder
	breaks int    // line breaks owed before the next text
	space  bool   // a space is owed before the next word
	prefix string // list marker or heading hashes for the next line
	pre    int    // depth of <pre> elements: whitespace is kept inside
	lists  []int  // for each open list, the next number (0 for bullets)
	cells  int    // cells written in the current table row
}

func (w *textWriter) lineBreak(n int) {
	w.breaks = max(w.breaks, n)
	w.space = false
}

// write appends s after any owed line breaks, prefix or space.
func (w *textWriter) write(s string) {
	if w.b.Len() > 0 {
		switch {
		case w.breaks > 0:
			w.b.WriteString("\n\n"[:min(w.breaks, 2)])
		case w.space:
			w.b.WriteByte(' ')
		}
	}
	if w.prefix != "" {
		w.b.WriteString(w.prefix)
		w.prefix = ""
	}
	if w.link == linkPending {
		w.b.WriteByte('[')
		w.link = linkOpen
	}
	w.breaks, w.space = 0, false
	w.b.WriteString(s)
}

// linkState tracks an <a> element being written: its "[" is held back until the link
// shows some text, so a link with none (an image, say) leaves no empty brackets.
type linkState uint8

const (
	linkNone    linkState = iota
	linkPending           // inside a link, no text yet
	linkOpen              // inside a link, "[" written
)

// text writes the words of a text node with whitespace collapsed.
func (w *textWriter) text(s string) {
	if w.pre > 0 {
		w.write(s)
		return
	}
	if s == "" {
		return
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if unicode.IsSpace(first) {
		w.space = true
	}
	for i, word := range strings.Fields(s) {
		if i > 0 {
			w.space = true
		}
		w.write(word)
	}
	if unicode.IsSpace(last) {
		w.space = true
	}
}

func (w *textWriter) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode, html.DocumentNode:
	default:
		return
	}
	if n.Type == html.ElementNode && (htmlDropped[n.DataAtom] || hiddenElement(n)) {
		return
	}
	a := n.DataAtom
	breaks := htmlBlocks[a]
	if (a == atom.Ul || a == atom.Ol) && len(w.lists) > 0 {
		breaks = 1 // a nested list continues its parent
	}
	if breaks > 0 {
		w.lineBreak(breaks)
	}
	closing := w.open(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	w.close(a, closing)
	if breaks > 0 {
		w.lineBreak(breaks)
	}
}

// open starts an element and returns any text that must close it.
func (w *textWriter) open(n *html.Node) string {
	switch a := n.DataAtom; a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		level := int(n.Data[1] - '0')
		w.prefix = strings.Repeat("#", level) + " "
	case atom.Ul:
		w.lists = append(w.lists, 0)
	case atom.Ol:
		start := 1
		for _, attr := range n.Attr {
			if attr.Key == "start" {
				if v, err := strconv.Atoi(attr.Val); err == nil {
					start = v
				}
			}
		}
		w.lists = append(w.lists, start)
	case atom.Li:
		indent := strings.Repeat("  ", max(len(w.lists)-1, 0))
		marker := "- "
		if k := len(w.lists) - 1; k >= 0 && w.lists[k] > 0 {
			marker = strconv.Itoa(w.lists[k]) + ". "
			w.lists[k]++
		}
		w.prefix = indent + marker
	case atom.Pre:
		w.write("```")
		w.lineBreak(1)
		w.pre++
		return "```"
	case atom.Code:
		if w.pre == 0 {
			w.write("`")
			return "`"
		}
	case atom.A:
		if target := w.linkTarget(n); target != "" && w.link == linkNone {
			w.link = linkPending
			return "](" + target + ")"
		}
	case atom.Tr:
		w.cells = 0
	case atom.Td, atom.Th:
		if w.cells > 0 {
			w.write(" |")
			w.space = true
		}
		w.cells++
	}
	return ""
}

// close ends an element opened by open.
func (w *textWriter) close(a atom.Atom, closing string) {
	switch a {
	case atom.Ul, atom.Ol:
		w.lists = w.lists[:len(w.lists)-1]
	case atom.Li, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.prefix = ""
	case atom.A:
		if closing != "" {
			if w.link == linkOpen {
				w.b.WriteString(closing)
			}
			w.link = linkNone
		}
		return
	case atom.Pre:
		w.pre--
		if !strings.HasSuffix(w.b.String(), "\n") {
			w.lineBreak(1)
		}
		w.write(closing)
		return
	}
	if closing != "" {
		w.b.WriteString(closing)
	}
}

// hiddenElement reports elements the page hides from readers.
func hiddenElement(n *html.Node) bool {
	for _, attr := range n.Attr {
		switch {
		case attr.Key == "hidden":
			return true
		case attr.Key == "aria-hidden" && attr.Val == "true":
			return true
		}
	}
	return false
}
