package flightsrv

import (
	"bytes"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// bodyBufs holds record-batch body buffers between DoGet streams. arrow-go's
// own Flight writer gives every stream a new buffer, which regrows from empty
// for each stream's first batch: on a snapshot of many small splits that
// growth was a fifth of the simulator's CPU, which a Doris BE does not spend
// and which the client's measurements would otherwise share a core with.
var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody keeps an unusually large body from staying in the pool.
const maxPooledBody = 64 << 20

// payloadWriter sends each IPC payload as one FlightData message, as
// arrow-go's writer does, with a pooled body buffer.
type payloadWriter struct {
	stream pb.FlightService_DoGetServer
	fd     flight.FlightData
	buf    *bytes.Buffer
}

func newRecordWriter(stream pb.FlightService_DoGetServer, opts ...ipc.Option) *ipc.Writer {
	return ipc.NewWriterWithPayloadWriter(&payloadWriter{stream: stream}, opts...)
}

func (w *payloadWriter) Start() error { return nil }

func (w *payloadWriter) WritePayload(p ipc.Payload) error {
	meta := p.Meta()
	defer meta.Release()
	if w.buf == nil {
		w.buf = bodyBufs.Get().(*bytes.Buffer)
	}
	w.buf.Reset()
	p.SerializeBody(w.buf)
	w.fd.DataHeader = meta.Bytes()
	w.fd.DataBody = w.buf.Bytes()
	// Send marshals the message before it returns, so the buffer is free
	// again afterwards.
	return w.stream.Send(&w.fd)
}

func (w *payloadWriter) Close() error {
	if w.buf != nil && w.buf.Cap() <= maxPooledBody {
		w.buf.Reset()
		bodyBufs.Put(w.buf)
	}
	w.buf = nil
	w.fd = flight.FlightData{}
	return nil
}
