// Package benchstream builds the SSE stream of the hot-path benchmarks:
// client's BenchmarkStreamParse and BenchmarkDo read it, and bench's
// BenchmarkHTTPLineScanFloor, their floor, serves it. They must read the
// same bytes for their ns/chunk to compare, so the stream is built here,
// once.
package benchstream
