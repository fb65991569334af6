// Command zpeer is the Go side of zebrapack's cross-language tests: a strict
// ZebraPack reader and writer for the test schemas, written on the msgp
// runtime the way the reference generator writes them.
//
// Usage:
//
//	zpeer roundtrip SCHEMA TYPE
//
// SCHEMA is zp (struct names on the wire), zpn (the same structs without
// them), evo1 or evo2; TYPE is one of its structs. zpeer reads requests on
// stdin until it closes, and answers each on stdout before reading the next:
//
//	request:  uint32 n (big-endian), then n bytes: one or more records of TYPE
//	response: 'R', uint32 n, n bytes: each record decoded and encoded again
//	      or: 'E', uint32 n, n bytes: why the records were rejected (one line)
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"zpeer/evo1"
	"zpeer/evo2"
	"zpeer/zp"
)

// record is a struct with a ZebraPack reader and writer.
type record interface {
	UnmarshalZ(b []byte) ([]byte, error)
	AppendZ(o []byte, structNames bool) ([]byte, error)
}

type schema struct {
	structNames bool
	types       map[string]func() record
}

var zpTypes = map[string]func() record{
	"A":        func() record { return new(zp.A) },
	"Prims":    func() record { return new(zp.Prims) },
	"Inner":    func() record { return new(zp.Inner) },
	"Compound": func() record { return new(zp.Compound) },
	"Tree":     func() record { return new(zp.Tree) },
}

var schemas = map[string]schema{
	"zp":   {structNames: true, types: zpTypes},
	"zpn":  {structNames: false, types: zpTypes},
	"evo1": {structNames: true, types: map[string]func() record{"Person": func() record { return new(evo1.Person) }}},
	"evo2": {structNames: true, types: map[string]func() record{"Person": func() record { return new(evo2.Person) }}},
}

func main() {
	if len(os.Args) != 4 || os.Args[1] != "roundtrip" {
		fmt.Fprintln(os.Stderr, "usage: zpeer roundtrip SCHEMA TYPE")
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
	roundTrip := func(records []byte) ([]byte, error) { return reencode(records, newRecord, s.structNames) }
	if err := serve(os.Stdin, os.Stdout, roundTrip); err != nil {
		fmt.Fprintln(os.Stderr, "zpeer:", err)
		os.Exit(1)
	}
}

func names[V any](m map[string]V) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// reencode decodes every record of a request strictly and encodes it again.
func reencode(records []byte, newRecord func() record, structNames bool) ([]byte, error) {
	var out []byte
	for index := 0; len(records) > 0; index++ {
		value := newRecord()
		var err error
		if records, err = value.UnmarshalZ(records); err != nil {
			return nil, fmt.Errorf("record %d: %w", index, err)
		}
		if out, err = value.AppendZ(out, structNames); err != nil {
			return nil, fmt.Errorf("record %d: %w", index, err)
		}
	}
	return out, nil
}

// serve answers the requests on in, one at a time, on out.
func serve(in io.Reader, out io.Writer, roundTrip func([]byte) ([]byte, error)) error {
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
		encoded, rejection := roundTrip(request)
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
