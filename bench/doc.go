// Package bench owns toksweep's performance harness: the scripts (run.sh,
// scale.sh, soak.sh, testtime.sh), the raw client toksweep is compared with
// (rawclient), the measuring programs in cmd/ and, in floor_test.go, the
// end-to-end floor for client.BenchmarkDo; README.md says what each
// measures.
package bench
