package main

// zpeer msgp-bench: Go's own generated code on the README's A records, timed
// for benchmarks/bench_arrow.py, which sets it beside zebrapack.arrow in the
// same run. The code is tinylib/msgp's generator's (zp/a_gen.go, field names
// as keys); the records are the ones zebrapack wrote.
//
// Protocol (the frames of main.go):
//
//	first request:  the records, ZebraPack-encoded A one after the other; they
//	                are read with zp's strict reader, written again with
//	                MarshalMsg, and each read back with UnmarshalMsg and checked
//	                equal. Answer: JSON {"records": n, "msgp_bytes": m}.
//	then, each request: an operation name; the answer is the nanoseconds one
//	                pass over every record took (decimal text):
//	  unmarshal-reused  UnmarshalMsg of each record into one reused A
//	  unmarshal-new     UnmarshalMsg of each record into a new A, all kept
//	                    (a slice of n pointers made per pass)
//	  marshal           MarshalMsg of each record, appended to one buffer
//	                    reused from pass to pass (made at its full size when
//	                    the records are loaded, so that no pass grows it)

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"zpeer/zp"
)

type msgpBench struct {
	records []zp.A
	msgs    []byte // the records as MarshalMsg writes them, one after the other
	out     []byte // marshal's buffer, reused
	sink    int    // what each pass read, so that no pass can be optimised away
}

func msgpBenchCommand(in io.Reader, out io.Writer) error {
	var bench *msgpBench
	return serve(in, out, func(request []byte) ([]byte, error) {
		if bench == nil {
			var err error
			if bench, err = newMsgpBench(request); err != nil {
				return nil, err
			}
			return json.Marshal(map[string]int{"records": len(bench.records), "msgp_bytes": len(bench.msgs)})
		}
		elapsed, err := bench.pass(string(request))
		if err != nil {
			return nil, err
		}
		return []byte(strconv.FormatInt(elapsed.Nanoseconds(), 10)), nil
	})
}

func newMsgpBench(zebrapack []byte) (*msgpBench, error) {
	bench := &msgpBench{}
	for index := 0; len(zebrapack) > 0; index++ {
		var a zp.A
		var err error
		if zebrapack, err = a.UnmarshalZ(zebrapack); err != nil {
			return nil, fmt.Errorf("record %d: %w", index, err)
		}
		bench.records = append(bench.records, a)
	}
	for index := range bench.records {
		var err error
		start := len(bench.msgs)
		if bench.msgs, err = bench.records[index].MarshalMsg(bench.msgs); err != nil {
			return nil, fmt.Errorf("record %d: MarshalMsg: %w", index, err)
		}
		var back zp.A
		if _, err = back.UnmarshalMsg(bench.msgs[start:]); err != nil {
			return nil, fmt.Errorf("record %d: UnmarshalMsg: %w", index, err)
		}
		if !sameA(back, bench.records[index]) {
			return nil, fmt.Errorf("record %d: MarshalMsg then UnmarshalMsg gives %+v, not %+v",
				index, back, bench.records[index])
		}
	}
	bench.out = make([]byte, 0, len(bench.msgs))
	return bench, nil
}

func sameA(x, y zp.A) bool {
	return x.Name == y.Name && x.Bday.Equal(y.Bday) && x.Phone == y.Phone && x.Sibs == y.Sibs &&
		x.GPA == y.GPA && x.Friend == y.Friend
}

func (b *msgpBench) pass(operation string) (time.Duration, error) {
	var err error
	start := time.Now()
	switch operation {
	case "unmarshal-reused":
		var a zp.A
		for rest := b.msgs; len(rest) > 0 && err == nil; {
			rest, err = a.UnmarshalMsg(rest)
			b.sink += a.Sibs
		}
	case "unmarshal-new":
		kept := make([]*zp.A, 0, len(b.records))
		for rest := b.msgs; len(rest) > 0 && err == nil; {
			a := new(zp.A)
			rest, err = a.UnmarshalMsg(rest)
			kept = append(kept, a)
		}
		b.sink += len(kept)
	case "marshal":
		b.out = b.out[:0]
		for index := range b.records {
			if b.out, err = b.records[index].MarshalMsg(b.out); err != nil {
				break
			}
		}
		b.sink += len(b.out)
	default:
		return 0, errors.New("unknown operation " + strconv.Quote(operation))
	}
	elapsed := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", operation, err)
	}
	return elapsed, nil
}

// msgpBenchMain runs the command; its exit status.
func msgpBenchMain() int {
	if err := msgpBenchCommand(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "zpeer msgp-bench:", err)
		return 1
	}
	return 0
}
