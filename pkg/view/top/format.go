package top

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"flamekit/pkg/folded"
)

// percent formats value as a percentage of total the way pprof does:
// "  100%", "82.00%", " 0.031%".
func percent(value, total float64) string {
	var r float64
	if total != 0 {
		r = math.Abs(value/total) * 100
	}
	switch {
	case r >= 99.95 && r <= 100.05:
		return "  100%"
	case r >= 1:
		return fmt.Sprintf("%5.2f%%", r)
	}
	return fmt.Sprintf("%5.2g%%", r)
}

func count(v float64) string { return folded.FormatCount(v) }

// signed is s, the label of v, with a + when v is positive.
func signed(s string, v float64) string {
	if v > 0 {
		return "+" + s
	}
	return s
}

// nonZero is the value of a row that sets the unit, as pprof takes it:
// its flat, or its cum when flat is 0.
func nonZero(flat, cum float64) float64 {
	if flat != 0 {
		return flat
	}
	return cum
}

// outputUnit is the unit the text tables of t print in, for the values
// shown vals.
func (t *Table) outputUnit(vals []float64) string {
	show := t.Show
	if show == "" {
		show = Minimum
	}
	return outputUnit(show, t.Unit, vals, t.Total)
}

func pct(v, total float64) float64 {
	if total == 0 {
		return 0
	}
	return v / total * 100
}

// noun returns "function", "functions", "module", ... for n rows.
func noun(by By, n int) string {
	s := by.String()
	if n != 1 {
		s += "s"
	}
	return s
}

// WriteText writes the first n rows of t (all when n <= 0) as go tool
// pprof -top prints them, after a header line with the total. A
// differential table has two more columns, the change of flat and cum
// from the first count to the second (Δflat, Δcum).
func WriteText(w io.Writer, t *Table, n int) error {
	rows := t.Rows
	if n > 0 && n < len(rows) {
		rows = rows[:n]
	}
	var shown float64
	vals := make([]float64, 0, len(rows))
	for _, r := range rows {
		shown += r.Flat
		vals = append(vals, nonZero(r.Flat, r.Cum))
	}
	out := t.outputUnit(vals)
	count := func(v float64) string { return label(v, t.Unit, out) }
	signed := func(v float64) string { return signed(count(v), v) }
	var b strings.Builder
	if len(rows) < len(t.Rows) {
		fmt.Fprintf(&b, "Showing top %d of %d %s, ", len(rows), len(t.Rows), noun(t.By, len(t.Rows)))
	} else {
		fmt.Fprintf(&b, "Showing all %d %s, ", len(rows), noun(t.By, len(rows)))
	}
	fmt.Fprintf(&b, "accounting for %s (%s) of %s total", count(shown), strings.TrimSpace(percent(shown, t.Total)), count(t.Total))
	if t.Diff {
		fmt.Fprintf(&b, " (first profile: %s)", count(t.TotalBefore))
	}
	b.WriteByte('\n')
	wid := 10
	for _, r := range rows {
		wid = max(wid, len(count(r.Flat)), len(count(r.Cum)))
	}
	dwid := 10
	if t.Diff {
		for _, r := range rows {
			dwid = max(dwid, len(signed(r.Flat-r.FlatBefore)), len(signed(r.Cum-r.CumBefore)))
		}
	}
	fmt.Fprintf(&b, "%*s %6s %6s %*s %6s", wid, "flat", "flat%", "sum%", wid, "cum", "cum%")
	if t.Diff {
		fmt.Fprintf(&b, " %*s %*s", dwid, "Δflat", dwid, "Δcum")
	}
	b.WriteString("  name\n")
	var sum float64
	for _, r := range rows {
		sum += r.Flat
		fmt.Fprintf(&b, "%*s %s %s %*s %s", wid, count(r.Flat), percent(r.Flat, t.Total), percent(sum, t.Total), wid, count(r.Cum), percent(r.Cum, t.Total))
		if t.Diff {
			fmt.Fprintf(&b, " %*s %*s", dwid, signed(r.Flat-r.FlatBefore), dwid, signed(r.Cum-r.CumBefore))
		}
		fmt.Fprintf(&b, "  %s\n", r.Name)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSV writes the first n rows of t (all when n <= 0) as CSV with a
// header: name, flat, flat_pct, sum_pct, cum, cum_pct, and for a
// differential table flat_before, cum_before, flat_delta, cum_delta.
// Percentages are not rounded.
func WriteCSV(w io.Writer, t *Table, n int) error {
	rows := t.Rows
	if n > 0 && n < len(rows) {
		rows = rows[:n]
	}
	cw := csv.NewWriter(w)
	head := []string{"name", "flat", "flat_pct", "sum_pct", "cum", "cum_pct"}
	if t.Diff {
		head = append(head, "flat_before", "cum_before", "flat_delta", "cum_delta")
	}
	cw.Write(head)
	var sum float64
	for _, r := range rows {
		sum += r.Flat
		rec := []string{r.Name, count(r.Flat), ratio(r.Flat, t.Total), ratio(sum, t.Total), count(r.Cum), ratio(r.Cum, t.Total)}
		if t.Diff {
			rec = append(rec, count(r.FlatBefore), count(r.CumBefore), count(r.Flat-r.FlatBefore), count(r.Cum-r.CumBefore))
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

func ratio(v, total float64) string {
	return folded.FormatCount(pct(v, total))
}

// jsonRow is a row of the JSON output.
type jsonRow struct {
	Name       string   `json:"name"`
	Flat       float64  `json:"flat"`
	FlatPct    float64  `json:"flat_pct"`
	SumPct     *float64 `json:"sum_pct,omitempty"`
	Cum        float64  `json:"cum"`
	CumPct     float64  `json:"cum_pct"`
	FlatBefore *float64 `json:"flat_before,omitempty"`
	CumBefore  *float64 `json:"cum_before,omitempty"`
}

type jsonEdge struct {
	Name     string   `json:"name"`
	Calls    float64  `json:"calls"`
	CallsPct float64  `json:"calls_pct"`
	Before   *float64 `json:"calls_before,omitempty"`
}

type jsonPeek struct {
	jsonRow
	Callers []jsonEdge `json:"callers,omitempty"`
	Callees []jsonEdge `json:"callees,omitempty"`
}

type jsonDoc struct {
	By          string     `json:"by"`
	Unit        string     `json:"unit,omitempty"` // of every count: "nanoseconds", "bytes", ...
	Total       float64    `json:"total"`
	TotalBefore *float64   `json:"total_before,omitempty"`
	Count       int        `json:"count"`
	Rows        *[]jsonRow `json:"rows,omitempty"` // set (maybe empty) by WriteJSON, nil for peek
	Peek        []jsonPeek `json:"peek,omitempty"`
}

func (t *Table) jsonRow(r Row) jsonRow {
	j := jsonRow{Name: r.Name, Flat: r.Flat, FlatPct: pct(r.Flat, t.Total), Cum: r.Cum, CumPct: pct(r.Cum, t.Total)}
	if t.Diff {
		j.FlatBefore, j.CumBefore = ptr(r.FlatBefore), ptr(r.CumBefore)
	}
	return j
}

func ptr(v float64) *float64 { return &v }

func (t *Table) doc() jsonDoc {
	d := jsonDoc{By: t.By.String(), Unit: t.Unit, Total: t.Total, Count: len(t.Rows)}
	if t.Diff {
		d.TotalBefore = ptr(t.TotalBefore)
	}
	return d
}

// WriteJSON writes the first n rows of t (all when n <= 0) as one JSON
// object: {"by", "total", "count" (of rows in the whole table), "rows":
// [{"name", "flat", "flat_pct", "sum_pct", "cum", "cum_pct"}]}, plus
// "total_before", "flat_before" and "cum_before" for a differential
// table. Percentages are not rounded.
func WriteJSON(w io.Writer, t *Table, n int) error {
	rows := t.Rows
	if n > 0 && n < len(rows) {
		rows = rows[:n]
	}
	d := t.doc()
	out := []jsonRow{} // "rows": [] for an empty input, never absent
	var sum float64
	for _, r := range rows {
		sum += r.Flat
		j := t.jsonRow(r)
		j.SumPct = ptr(pct(sum, t.Total))
		out = append(out, j)
	}
	d.Rows = &out
	return writeJSON(w, d)
}

func writeJSON(w io.Writer, d jsonDoc) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

const peekRule = "+-------------"

// WritePeekText writes entries as go tool pprof -peek does: for each
// function, its callers above it and its callees below it, each with the
// count of the calls and their share of the function's cum. An entry
// whose Callers (or Callees) is nil is printed without them.
func WritePeekText(w io.Writer, t *Table, entries []Entry) error {
	vals := make([]float64, 0, len(entries))
	for _, e := range entries {
		vals = append(vals, nonZero(e.Flat, e.Cum))
	}
	out := t.outputUnit(vals)
	count := func(v float64) string { return label(v, t.Unit, out) }
	wid := 10
	for _, e := range entries {
		wid = max(wid, len(count(e.Flat)), len(count(e.Cum)))
	}
	left := 2*wid + 38 // the width before the "|"
	sep := strings.Repeat("-", left) + peekRule + "\n"
	var b strings.Builder
	fmt.Fprintf(&b, "Total: %s", count(t.Total))
	if t.Diff {
		fmt.Fprintf(&b, " (first profile: %s)", count(t.TotalBefore))
	}
	fmt.Fprintf(&b, "; %d %s match\n", len(entries), noun(t.By, len(entries)))
	b.WriteString(sep)
	fmt.Fprintf(&b, "%*s %6s %6s %*s %6s %*s + context\n", wid, "flat", "flat%", "sum%", wid, "cum", "cum%", 14, "calls calls%")
	b.WriteString(sep)
	edge := func(e Edge, cum float64) {
		fmt.Fprintf(&b, "%*s %s |   %s\n", left-8, count(e.Count), percent(e.Count, cum), e.Name)
	}
	var sum float64
	for _, e := range entries {
		for _, c := range e.Callers {
			edge(c, e.Cum)
		}
		sum += e.Flat
		fmt.Fprintf(&b, "%*s %s %s %*s %s                | %s\n", wid, count(e.Flat), percent(e.Flat, t.Total), percent(sum, t.Total), wid, count(e.Cum), percent(e.Cum, t.Total), e.Name)
		for _, c := range e.Callees {
			edge(c, e.Cum)
		}
		b.WriteString(sep)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WritePeekCSV writes entries as CSV: function, relation ("caller",
// "self" or "callee"), name, flat and cum (self rows), calls and
// calls_pct (of the function's cum; caller and callee rows).
func WritePeekCSV(w io.Writer, t *Table, entries []Entry) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"function", "relation", "name", "flat", "cum", "calls", "calls_pct"})
	edges := func(fn, rel string, es []Edge, cum float64) {
		for _, e := range es {
			cw.Write([]string{fn, rel, e.Name, "", "", count(e.Count), ratio(e.Count, cum)})
		}
	}
	for _, e := range entries {
		edges(e.Name, "caller", e.Callers, e.Cum)
		cw.Write([]string{e.Name, "self", e.Name, count(e.Flat), count(e.Cum), "", ""})
		edges(e.Name, "callee", e.Callees, e.Cum)
	}
	cw.Flush()
	return cw.Error()
}

// WritePeekJSON writes entries as one JSON object: {"by", "total",
// "count", "peek": [{"name", "flat", "flat_pct", "cum", "cum_pct",
// "callers": [{"name", "calls", "calls_pct"}], "callees": [...]}]}.
func WritePeekJSON(w io.Writer, t *Table, entries []Entry) error {
	d := t.doc()
	d.Count = len(entries)
	d.Peek = []jsonPeek{}
	conv := func(es []Edge, cum float64) []jsonEdge {
		out := []jsonEdge{}
		for _, e := range es {
			j := jsonEdge{Name: e.Name, Calls: e.Count, CallsPct: pct(e.Count, cum)}
			if t.Diff {
				j.Before = ptr(e.Before)
			}
			out = append(out, j)
		}
		return out
	}
	for _, e := range entries {
		p := jsonPeek{jsonRow: t.jsonRow(e.Row)}
		if e.Callers != nil {
			p.Callers = conv(e.Callers, e.Cum)
		}
		if e.Callees != nil {
			p.Callees = conv(e.Callees, e.Cum)
		}
		d.Peek = append(d.Peek, p)
	}
	return writeJSON(w, d)
}
