package report

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// TestColumnDocs: the column lists of the docs are the registry's. With
// -update, the lists are rewritten from Columns.
func TestColumnDocs(t *testing.T) {
	tests := []struct {
		file, begin, end string
		want             string
	}{
		{"../docs/metrics.md", "| column | unit | definition |\n", "\n## summary.json", strings.TrimPrefix(metricsTable(), "| column | unit | definition |\n")},
		{"../docs/guide.md", "figures](#the-servers-own-metrics)):\n\n", "\n\nTimes are milliseconds,", readmeColumns()},
		{"doc.go", "(4 for requests_per_s) decimals.\n//\n", "//\n// docs/metrics.md gives the exact formula", goDocColumns()},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		i := strings.Index(doc, tt.begin)
		j := strings.Index(doc[max(i, 0):], tt.end)
		if i < 0 || j < 0 {
			t.Errorf("%s: no column list between %q and %q", tt.file, tt.begin, tt.end)
			continue
		}
		i += len(tt.begin)
		j += i - len(tt.begin)
		if got := doc[i:j]; got != tt.want {
			if *update {
				if err := os.WriteFile(tt.file, []byte(doc[:i]+tt.want+doc[j:]), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s: the column list differs from report.Columns (go test ./report -update rewrites it)\ngot:\n%s\nwant:\n%s", tt.file, got, tt.want)
		}
	}
}

// TestColumnsWellFormed: every file column has a unique name and a
// definition, and every table column a heading or a marker role.
func TestColumnsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Columns {
		if c.Out != 0 && c.Name == "" {
			t.Errorf("a column written to files has no name: %+v", c)
		}
		if c.Name != "" && seen[c.Name] {
			t.Errorf("column %s twice", c.Name)
		}
		seen[c.Name] = true
		if c.Out&InCSV != 0 && c.Def == "" {
			t.Errorf("column %s has no definition", c.Name)
		}
		if c.Value == nil {
			t.Errorf("column %q has no value", c.Name)
		}
	}
	if !slices.Equal(LevelsCSVHeader[:4], []string{"concurrency", "repeat", "requests_ok", "requests_failed"}) {
		t.Errorf("levels.csv starts %v", LevelsCSVHeader[:4])
	}
}

// TestJSONFollowsColumns: summary.json writes the JSON columns in registry
// order, and every typed field of LevelJSON (the reader's view) is one of
// them, so reading back cannot drift from writing.
func TestJSONFollowsColumns(t *testing.T) {
	for _, s := range goldenStats() {
		b, err := json.Marshal(NewLevelJSON(s))
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token() // {
		for dec.More() {
			k, _ := dec.Token()
			keys = append(keys, k.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		var want []string
		for _, c := range ColumnsIn(InJSON) {
			if !c.omitEmpty || c.Value(&s).kind != noValue {
				want = append(want, c.Name)
			}
		}
		if !slices.Equal(keys, want) {
			t.Errorf("C=%d: summary.json keys\n%v\nwant (registry order)\n%v", s.Concurrency, keys, want)
		}
	}
	names := map[string]bool{}
	for _, c := range ColumnsIn(InJSON) {
		names[c.Name] = true
	}
	names["classes"], names["class"] = true, true // a level's class rows (levelObject)
	var tags func(reflect.Type)
	tags = func(typ reflect.Type) {
		for f := range typ.Fields() {
			if f.Anonymous {
				tags(f.Type)
				continue
			}
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.IsExported() && !names[tag] {
				t.Errorf("LevelJSON.%s reads %q, which no column writes", f.Name, tag)
			}
		}
	}
	tags(reflect.TypeFor[LevelJSON]())
}

// TestTablesFollowColumns: the tables (console and report.html) show every
// column the registry puts in a table, numbers then text, each level's cell
// being the column's People text; the console prints all but the server
// table.
func TestTablesFollowColumns(t *testing.T) {
	stats := goldenStats()
	stats[1].SLO = &SLOResult{Failed: []string{"decode_tps_p10 65.6 < 70"}}
	stats[2].Repeat = 1
	stats[3].Mode, stats[3].Rate = "rate", 2 // an open-loop level shows the open-loop columns
	stats[0].Server.SpecAcceptance = 0.7     // a speculative server shows the acceptance columns
	stats[0].GPU = gpuStats(sweep.Level{})   // and sampled GPUs their table
	stats[0].GPU.Sampled = true
	last := &stats[len(stats)-1] // a run with classes shows the class column (after the levels' rows: its row is last)
	last.Classes = []LevelStats{*last}
	last.Classes[0].Class = "interactive"
	var want []string
	tables := []Table{LeadTable, SingleTable, LeadTable, SmoothTable, LeadTable, AggregateTable, LeadTable, ServerTable, LeadTable, GPUTable}
	for i, tb := range tables {
		for _, left := range []bool{false, true} {
			for _, c := range Columns {
				levelOnly := i+1 < len(tables) && (tables[i+1] == ServerTable || tables[i+1] == GPUTable) // no class rows
				if c.Table == tb && c.Left == left && !(levelOnly && c.Name == "class") {
					want = append(want, c.Head)
				}
			}
		}
	}
	var got []string
	for _, lt := range LevelTables(stats) {
		for i, c := range lt.Cols {
			got = append(got, c.Head)
			if col := columnNamed(c.Name, c.Head); col != nil {
				for r := range stats {
					if cell := lt.Rows[r][i].Text; cell != col.People(&stats[r]) {
						t.Errorf("%s, C=%d: cell %q, want %q", c.Head, stats[r].Concurrency, cell, col.People(&stats[r]))
					}
				}
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("table heads\n%q\nwant\n%q", got, want)
	}
	var console bytes.Buffer
	if err := WriteConsole(&console, stats); err != nil {
		t.Fatal(err)
	}
	for _, lt := range LevelTables(stats) {
		if strings.Contains(console.String(), lt.Title) != (lt.Table != ServerTable) {
			t.Errorf("console shows table %q: %v", lt.Title, !strings.Contains(console.String(), lt.Title))
		}
	}
}

func columnNamed(name, head string) *Column {
	for i, c := range Columns {
		if c.Name == name && c.Head == head {
			return &Columns[i]
		}
	}
	return nil
}
