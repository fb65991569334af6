// Command zpeer is the Go side of zebrapack's cross-language tests: a strict
// ZebraPack reader and writer for the test schemas, written on the msgp
// runtime the way the reference generator writes them.
//
// Usage:
//
//	zpeer roundtrip SCHEMA TYPE
//	zpeer dump SCHEMA TYPE
//	zpeer tcp-send SCHEMA TYPE SEED [torn], zpeer tcp-receive SCHEMA TYPE (tcp.go)
//	zpeer msgp-bench (msgpbench.go: tinylib/msgp's generated code timed on A records)
//
// SCHEMA is zp (struct names on the wire), zpn (the same structs without
// them), evo1 or evo2 (tests/vectors/schemas), one of the golden schemas
// my, my2 (without struct names), deep and headerplus (tests/golden/schemas),
// acct or def (-msgp: tests/golden2/schemas), or rawnum (tests/schemas);
// TYPE is one of its structs. zpeer reads requests on stdin until it closes,
// and answers each on stdout before reading the next:
//
//	request:  uint32 n (big-endian), then n bytes: one or more records of TYPE
//	response: 'R', uint32 n, n bytes: the answer
//	      or: 'E', uint32 n, n bytes: why the records were rejected (one line)
//
// roundtrip answers with each record decoded and encoded again; dump with a
// JSON array holding the typed tree of each record as Go read it (see
// package typed), which states the Go type of every value in an interface.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"zpeer/acct"
	"zpeer/deep"
	"zpeer/def"
	"zpeer/evo1"
	"zpeer/evo2"
	"zpeer/headerplus"
	"zpeer/my"
	"zpeer/my2"
	"zpeer/rawnum"
	"zpeer/typed"
	"zpeer/wire"
	"zpeer/zp"
)

type schema struct {
	structNames bool
	types       map[string]func() wire.Record
}

var zpTypes = map[string]func() wire.Record{
	"A":        func() wire.Record { return new(zp.A) },
	"Prims":    func() wire.Record { return new(zp.Prims) },
	"Inner":    func() wire.Record { return new(zp.Inner) },
	"Compound": func() wire.Record { return new(zp.Compound) },
	"Tree":     func() wire.Record { return new(zp.Tree) },
}

var schemas = map[string]schema{
	"zp":         {structNames: true, types: zpTypes},
	"zpn":        {structNames: false, types: zpTypes},
	"evo1":       {structNames: true, types: map[string]func() wire.Record{"Person": func() wire.Record { return new(evo1.Person) }}},
	"evo2":       {structNames: true, types: map[string]func() wire.Record{"Person": func() wire.Record { return new(evo2.Person) }}},
	"my":         {structNames: true, types: my.Types},
	"my2":        {structNames: false, types: my2.Types}, // generated with -no-structnames-onwire
	"deep":       {structNames: true, types: deep.Types},
	"headerplus": {structNames: true, types: headerplus.Types},
	"acct":       {structNames: true, types: acct.Types},   // tests/golden2/schemas
	"def":        {structNames: false, types: def.Types},   // generated with -msgp: string keys, no names
	"rawnum":     {structNames: true, types: rawnum.Types}, // tests/schemas/rawnum.go
}

// commands answer one request: the records it holds, read by newRecord.
var commands = map[string]func(records []byte, newRecord func() wire.Record, structNames bool) ([]byte, error){
	"roundtrip": reencode,
	"dump":      dump,
}

func main() {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "tcp-") {
		os.Exit(tcpCommand(os.Args[1:])) // tcp.go
	}
	if len(os.Args) == 2 && os.Args[1] == "msgp-bench" {
		os.Exit(msgpBenchMain()) // msgpbench.go
	}
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: zpeer roundtrip|dump SCHEMA TYPE")
		os.Exit(2)
	}
	command, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "zpeer: unknown command %q (known: %s)\n", os.Args[1], names(commands))
		os.Exit(2)
	}
	s, ok := schemas[os.Args[2]]
	if !ok {
		fmt.Fprintf(os.Stderr, "zpeer: unknown schema %q (known: %s)\n", os.Args[2], names(schemas))
		os.Exit(2)
	}
	newRecord, ok := s.types[os.Args[3]]
	if !ok {
		fmt.Fprintf(os.Stderr, "zpeer: schema %s has no type %q (known: %s)\n", os.Args[2], os.Args[3], names(s.types))
		os.Exit(2)
	}
	answer := func(records []byte) ([]byte, error) { return command(records, newRecord, s.structNames) }
	if err := serve(os.Stdin, os.Stdout, answer); err != nil {
		fmt.Fprintln(os.Stderr, "zpeer:", err)
		os.Exit(1)
	}
}

func names[V any](m map[string]V) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// reencode decodes every record of a request strictly and encodes it again.
func reencode(records []byte, newRecord func() wire.Record, structNames bool) ([]byte, error) {
	var out []byte
	err := eachRecord(records, newRecord, func(value wire.Record) (err error) {
		out, err = value.AppendZ(out, structNames)
		return err
	})
	return out, err
}

// dump decodes every record of a request strictly and describes them as a
// JSON array of typed trees.
func dump(records []byte, newRecord func() wire.Record, _ bool) ([]byte, error) {
	trees := []typed.Node{}
	err := eachRecord(records, newRecord, func(value wire.Record) error {
		trees = append(trees, typed.Of(value))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(trees)
}

// eachRecord reads the records one after the other and hands each to use.
func eachRecord(records []byte, newRecord func() wire.Record, use func(wire.Record) error) error {
	for index := 0; len(records) > 0; index++ {
		value := newRecord()
		var err error
		if records, err = value.UnmarshalZ(records); err != nil {
			return fmt.Errorf("record %d: %w", index, err)
		}
		if err = use(value); err != nil {
			return fmt.Errorf("record %d: %w", index, err)
		}
	}
	return nil
}

// serve answers the requests on in, one at a time, on out.
func serve(in io.Reader, out io.Writer, answer func([]byte) ([]byte, error)) error {
	requests := bufio.NewReader(in)
	responses := bufio.NewWriter(out)
	for {
		request, err := readFrame(requests)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading a request: %w", err)
		}
		encoded, rejection := answer(request)
		if err := respond(responses, encoded, rejection); err != nil {
			return fmt.Errorf("writing a response: %w", err)
		}
	}
}

// respond writes the response to one request and flushes it.
func respond(w *bufio.Writer, encoded []byte, rejection error) error {
	var err error
	if rejection != nil {
		err = writeFrame(w, 'E', []byte(strings.ReplaceAll(rejection.Error(), "\n", " ")))
	} else {
		err = writeFrame(w, 'R', encoded)
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

func readFrame(r io.Reader) ([]byte, error) {
	var size uint32
	if err := binary.Read(r, binary.BigEndian, &size); err != nil {
		return nil, err // io.EOF only when no byte of a frame was read
	}
	frame := make([]byte, size)
	if _, err := io.ReadFull(r, frame); err != nil {
		if errors.Is(err, io.EOF) { // the frame's header came, its bytes did not
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("a frame of %d bytes: %w", size, err)
	}
	return frame, nil
}

func writeFrame(w io.Writer, status byte, payload []byte) error {
	header := binary.BigEndian.AppendUint32([]byte{status}, uint32(len(payload)))
	if _, err := w.Write(header); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}
