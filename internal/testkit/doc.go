// Package testkit holds the helpers that tests of several packages share: file trees with
// fixed modification times, skill files, checks that a process is gone, a sink that records
// events, lookups in decoded NDJSON streams, and the check that a renderer decides on every
// registered event type.
//
// It is imported by tests only. It imports nothing of kimi-run but the leaf package event,
// so any package's tests can use it without an import cycle.
package testkit
