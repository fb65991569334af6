package main

import (
	"fmt"
	"os"
	"strconv"

	"zpeer/stream"
)

// tcpCommand runs a live-connection command (package stream):
//
//	zpeer tcp-send SCHEMA TYPE SEED [torn]   records of TYPE on stdin, sent to the one connection
//	zpeer tcp-receive SCHEMA TYPE            records of TYPE read from the one connection, then on stdout
//
// Both print the address they listen on (127.0.0.1, an ephemeral port) first.
func tcpCommand(args []string) int {
	usage := func() int {
		fmt.Fprintln(os.Stderr, "usage: zpeer tcp-send SCHEMA TYPE SEED [torn] | zpeer tcp-receive SCHEMA TYPE")
		return 2
	}
	if len(args) < 3 {
		return usage()
	}
	s, ok := schemas[args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "zpeer: unknown schema %q (known: %s)\n", args[1], names(schemas))
		return 2
	}
	newRecord, ok := s.types[args[2]]
	if !ok {
		fmt.Fprintf(os.Stderr, "zpeer: schema %s has no type %q (known: %s)\n", args[1], args[2], names(s.types))
		return 2
	}
	var err error
	switch {
	case args[0] == "tcp-send" && (len(args) == 4 || len(args) == 5 && args[4] == "torn"):
		seed, parseErr := strconv.ParseUint(args[3], 10, 64)
		if parseErr != nil {
			return usage()
		}
		err = stream.Send(os.Stdin, os.Stdout, newRecord, s.structNames, seed, len(args) == 5)
	case args[0] == "tcp-receive" && len(args) == 3:
		err = stream.Receive(os.Stdout, newRecord, s.structNames)
	default:
		return usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "zpeer:", err)
		return 1
	}
	return 0
}
