// Package atomicfile writes the files of a run so that they are valid at
// every instant: a whole file is replaced through a temporary file and a
// rename (Write), or created without ever replacing one (WriteNew), and every write in progress is registered (Begin), so
// that a hard exit can wait for it (Quiesce) instead of cutting it short.
package atomicfile
