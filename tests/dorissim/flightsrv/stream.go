package flightsrv

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

type colSpec struct {
	name string
	typ  storage.Type
}

func specsFor(cols []storage.Column) ([]colSpec, *arrow.Schema, error) {
	schema, err := Schema(cols)
	if err != nil {
		return nil, nil, err
	}
	specs := make([]colSpec, len(cols))
	for i, c := range cols {
		specs[i] = colSpec{name: c.Name, typ: c.Type}
	}
	return specs, schema, nil
}

// beServer is the BE Flight endpoint: DoGet only.
type beServer struct {
	pb.UnimplementedFlightServiceServer
	svc *Service
}

func (b *beServer) DoGet(t *pb.Ticket, stream pb.FlightService_DoGetServer) error {
	return b.svc.doGet(t, stream, false)
}

func (s *Service) doGet(t *pb.Ticket, stream pb.FlightService_DoGetServer, onFE bool) error {
	if s.cfg.Hooks.TakeFailDoGet() {
		return status.Error(codes.Unavailable, "simulated DoGet failure")
	}
	handle, err := handleOf(t)
	if err != nil {
		return err
	}
	p := s.tickets.takeOn(handle, &onFE)
	if p == nil {
		return status.Errorf(codes.NotFound, "unknown or already fetched ticket %q", handle)
	}
	defer p.release()
	cut := int64(-1)
	// Results the FE answers itself (SET, USE) have no rows to cut; the
	// fault waits for the next real result.
	if n, ok := s.cfg.Hooks.TakeCutDoGet(); ok && !onFE {
		cut = n
	} else if ok {
		s.cfg.Hooks.RearmCutDoGet(n)
	}
	if err := s.streamRows(p, stream, cut); err != nil {
		s.cfg.Logf("flight: DoGet of ticket %s: %v", handle, err)
		return err
	}
	if cut >= 0 {
		// The stream ended before reaching the cut, which therefore did not
		// happen: it waits for a stream long enough to be cut.
		s.cfg.Hooks.RearmCutDoGet(cut)
	}
	return nil
}

// streamRows converts the engine's row stream into record batches of at
// most BatchRows rows, reusing one set of builders; the whole result is never
// held in memory. cut >= 0 aborts the stream after that many rows.
func (s *Service) streamRows(p *pending, stream pb.FlightService_DoGetServer, cut int64) error {
	w := newRecordWriter(stream, ipc.WithSchema(p.schema), ipc.WithAllocator(s.mem))
	defer w.Close()
	if p.res == nil {
		return w.Close()
	}
	rb := array.NewRecordBuilder(s.mem, p.schema)
	defer rb.Release()
	apps := make([]appender, len(p.cols))
	for i, c := range p.cols {
		a, err := bind(c.typ, rb.Field(i))
		if err != nil {
			return status.Errorf(codes.Internal, "column %s: %v", c.name, err)
		}
		apps[i] = a
	}
	var sent int64
	inBatch := 0
	flush := func() error {
		rec := rb.NewRecordBatch()
		defer rec.Release()
		sent += int64(inBatch)
		inBatch = 0
		if err := w.Write(rec); err != nil {
			return fmt.Errorf("write record batch: %w", err)
		}
		return nil
	}
	for {
		if err := stream.Context().Err(); err != nil {
			return status.FromContextError(err).Err()
		}
		if cut >= 0 && sent+int64(inBatch) == cut {
			if err := flush(); err != nil {
				return err
			}
			return status.Errorf(codes.Unavailable, "simulated stream cut after %d rows", cut)
		}
		row, err := p.res.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return status.Errorf(codes.Internal, "read result: %v", err)
		}
		if err := appendRow(apps, p.cols, row); err != nil {
			return status.Errorf(codes.Internal, "%v", err)
		}
		inBatch++
		if inBatch == s.cfg.BatchRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if inBatch > 0 {
		if err := flush(); err != nil {
			return err
		}
	}
	return w.Close()
}

func appendRow(apps []appender, cols []colSpec, row []any) error {
	if len(row) != len(apps) {
		return fmt.Errorf("row has %d values, schema has %d columns", len(row), len(apps))
	}
	for i, a := range apps {
		if err := a(row[i]); err != nil {
			return fmt.Errorf("column %s: %w", cols[i].name, err)
		}
	}
	return nil
}
