// Package stream is zpeer's live-connection mode: records over one TCP
// connection on the loopback interface, each acknowledged by the reader before
// the writer sends the next.
//
// Send writes records with the msgp runtime's msgp.Writer, flushing each in
// pieces of 1 to MaxPiece bytes (seeded sizes, now and then a short pause), as
// a Go service on a slow or fragmenting network delivers them; after each
// record it waits for the reader's acknowledgement, the record count as a
// msgpack uint. A reader that holds a whole record back until more bytes come
// never acknowledges it, so the two wait for each other until a timeout fails
// the exchange: no timing threshold decides. Receive is the other direction:
// records read with msgp.Reader and the strict ZebraPack readers, each
// acknowledged the same way.
//
// Every wait is bounded (AcceptTimeout, AckTimeout), so that a test never hangs.
package stream

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"time"

	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

const (
	// AcceptTimeout bounds the wait for the test to connect.
	AcceptTimeout = 30 * time.Second
	// AckTimeout bounds each wait for the peer: an acknowledgement, or the next record.
	AckTimeout = 20 * time.Second
	// MaxPiece is the largest piece a record is flushed in.
	MaxPiece = 200
	// maxPause is the longest pause before a piece of a record.
	maxPause = 300 * time.Microsecond
)

// Send reads records of one type from in (concatenated, each read strictly), then
// listens on 127.0.0.1 (an ephemeral port, printed on out as "HOST:PORT\n"),
// accepts one connection and sends them, one by one, each after the
// acknowledgement of the one before. With torn, it then sends a part of one more
// record (at least a byte, never all of it) and closes the connection. Last it
// prints "sent N records, B bytes\n": B is the stream offset where the torn
// record starts.
func Send(in io.Reader, out io.Writer, newRecord func() wire.Record, structNames bool, seed uint64, torn bool) error {
	records, err := readRecords(in, newRecord)
	if err != nil {
		return err
	}
	conn, err := acceptOne(out)
	if err != nil {
		return err
	}
	defer conn.Close()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	w := msgp.NewWriter(conn)
	acks := msgp.NewReader(conn)
	sent := 0
	for i, record := range records {
		encoded, err := record.AppendZ(nil, structNames)
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if err := writePieces(w, encoded, rng); err != nil {
			return fmt.Errorf("sending record %d: %w", i, err)
		}
		sent += len(encoded)
		if err := conn.SetReadDeadline(time.Now().Add(AckTimeout)); err != nil {
			return err
		}
		ack, err := acks.ReadUint64()
		if err != nil {
			return fmt.Errorf("waiting for the acknowledgement of record %d (%d bytes): %w", i, len(encoded), err)
		}
		if ack != uint64(i+1) {
			return fmt.Errorf("acknowledgement %d after record %d", ack, i)
		}
	}
	if torn {
		if len(records) == 0 {
			return errors.New("a torn record needs a record to tear")
		}
		encoded, err := records[0].AppendZ(nil, structNames)
		if err != nil {
			return err
		}
		if err := writePieces(w, encoded[:1+rng.IntN(len(encoded)-1)], rng); err != nil {
			return fmt.Errorf("sending the torn record: %w", err)
		}
	}
	if err := conn.Close(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "sent %d records, %d bytes\n", len(records), sent)
	return err
}

// Receive listens on 127.0.0.1 (an ephemeral port, printed on out as
// "HOST:PORT\n"), accepts one connection and reads records of one type from it
// with msgp.Reader until the peer closes it, each strictly, acknowledging each;
// then writes every record it read, encoded again, to out.
func Receive(out io.Writer, newRecord func() wire.Record, structNames bool) error {
	conn, err := acceptOne(out)
	if err != nil {
		return err
	}
	defer conn.Close()
	r := msgp.NewReader(conn)
	acks := msgp.NewWriter(conn)
	var received []byte
	for count := 0; ; count++ {
		if err := conn.SetReadDeadline(time.Now().Add(AckTimeout)); err != nil {
			return err
		}
		if _, err := r.R.Peek(1); errors.Is(err, io.EOF) {
			break // closed between two records
		}
		var raw msgp.Raw
		if err := raw.DecodeMsg(r); err != nil {
			return fmt.Errorf("record %d: %w", count, err)
		}
		value := newRecord()
		rest, err := value.UnmarshalZ(raw)
		if err == nil && len(rest) != 0 {
			err = fmt.Errorf("%d bytes left after the record", len(rest))
		}
		if err != nil {
			return fmt.Errorf("record %d: %w", count, err)
		}
		if received, err = value.AppendZ(received, structNames); err != nil {
			return fmt.Errorf("record %d: %w", count, err)
		}
		if err := acks.WriteUint64(uint64(count + 1)); err != nil {
			return err
		}
		if err := acks.Flush(); err != nil {
			return err
		}
	}
	_, err = out.Write(received)
	return err
}

// writePieces writes b through w in pieces of 1 to MaxPiece bytes, flushing each.
func writePieces(w *msgp.Writer, b []byte, rng *rand.Rand) error {
	for len(b) > 0 {
		n := min(len(b), 1+rng.IntN(MaxPiece))
		if _, err := w.Write(b[:n]); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		b = b[n:]
		if len(b) > 0 && rng.IntN(4) == 0 { // now and then, the next piece a little later
			time.Sleep(time.Duration(rng.Int64N(int64(maxPause))))
		}
	}
	return nil
}

// acceptOne listens on an ephemeral loopback port, says which on out, and
// accepts one connection.
func acceptOne(out io.Writer) (net.Conn, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer listener.Close()
	if _, err := fmt.Fprintf(out, "%s\n", listener.Addr()); err != nil {
		return nil, err
	}
	if err := listener.(*net.TCPListener).SetDeadline(time.Now().Add(AcceptTimeout)); err != nil {
		return nil, err
	}
	return listener.Accept()
}

// readRecords reads every record of in, strictly.
func readRecords(in io.Reader, newRecord func() wire.Record) ([]wire.Record, error) {
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	var records []wire.Record
	for len(data) > 0 {
		value := newRecord()
		if data, err = value.UnmarshalZ(data); err != nil {
			return nil, fmt.Errorf("input record %d: %w", len(records), err)
		}
		records = append(records, value)
	}
	return records, nil
}
