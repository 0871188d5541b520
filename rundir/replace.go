package rundir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkRun is what --overwrite may replace: a directory that holds a
// toksweep run (its summary.json or its lock, as regular files) and nothing
// but the files a run writes. Anything else, a working directory or a
// directory of someone's files, is refused in one line naming what does not
// belong (ErrRunDirNotRun): --overwrite deleted any non-empty directory.
func checkRun(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return dirError(dir, err)
	}
	marked := false
	for _, e := range entries {
		name := e.Name()
		if !runEntry(dir, e) {
			return &kindError{fmt.Sprintf("run directory %s holds %s, which no toksweep run writes: --overwrite replaces only a toksweep run; choose another --out", dir, name), ErrRunDirNotRun}
		}
		marked = marked || name == SummaryFile || name == LockFile
	}
	if !marked {
		return &kindError{fmt.Sprintf("run directory %s holds no %s: --overwrite replaces only a toksweep run; choose another --out", dir, SummaryFile), ErrRunDirNotRun}
	}
	return nil
}

// runEntry says whether e is one of the entries a run writes: its files
// (regular files), the charts directory of chart files, and the temporary
// files of an interrupted atomic write.
func runEntry(dir string, e fs.DirEntry) bool {
	name := e.Name()
	if e.Name() == chartsDir {
		return e.IsDir() && chartsOnly(filepath.Join(dir, name))
	}
	if !e.Type().IsRegular() {
		return false
	}
	switch name {
	case SummaryFile, LevelsFile, RequestsFile, LockFile, LevelFile, ShardFile, reportFile:
		return true
	}
	return atomicTemp(name)
}

// The report's own names (htmlreport.File and ChartsDir; rundir does not
// import the renderer).
const (
	reportFile = "report.html"
	chartsDir  = "charts"
)

// chartsOnly says whether dir holds only chart files (NAME.svg, NAME.png).
func chartsOnly(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || !(strings.HasSuffix(n, ".svg") || strings.HasSuffix(n, ".png") || atomicTemp(n)) {
			return false
		}
	}
	return true
}

// atomicTemp says whether name is an atomicfile temporary: ".NAME.tmp-*".
func atomicTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}
