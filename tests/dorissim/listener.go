package dorissim

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// refusable is a TCP listener that can refuse connections for a while: it
// closes the socket (and its open connections, like a crashed process) and
// re-listens on the same address afterwards. Serve loops keep running on it.
type refusable struct {
	addr string
	wrap func(net.Conn) net.Conn // optional per-connection wrapper

	mu       sync.Mutex
	cur      net.Listener
	refusing bool
	reopened chan struct{}
	closed   bool
	done     chan struct{}
	conns    map[net.Conn]struct{}
	timer    *time.Timer
}

func listenRefusable(host string, port int, wrap func(net.Conn) net.Conn) (*refusable, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
	if err != nil {
		return nil, err
	}
	return &refusable{addr: l.Addr().String(), wrap: wrap, cur: l, done: make(chan struct{}), conns: map[net.Conn]struct{}{}}, nil
}

func (r *refusable) Addr() net.Addr {
	a, _ := net.ResolveTCPAddr("tcp", r.addr)
	return a
}

func (r *refusable) Accept() (net.Conn, error) {
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, net.ErrClosed
		}
		l, refusing, wait := r.cur, r.refusing, r.reopened
		r.mu.Unlock()
		if refusing {
			select {
			case <-wait:
			case <-r.done:
			}
			continue
		}
		c, err := l.Accept()
		if err != nil {
			r.mu.Lock()
			retry := !r.closed && (r.refusing || r.cur != l)
			closed := r.closed
			r.mu.Unlock()
			if closed {
				return nil, net.ErrClosed
			}
			if retry {
				continue
			}
			return nil, err
		}
		if r.track(c) {
			if r.wrap != nil {
				return r.wrap(&trackedConn{Conn: c, owner: r}), nil
			}
			return &trackedConn{Conn: c, owner: r}, nil
		}
	}
}

func (r *refusable) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refusing || r.closed {
		c.Close()
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

// refuse closes the socket and every open connection, and re-listens on the
// same address after d.
func (r *refusable) refuse(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.refusing {
		return
	}
	r.refusing = true
	r.reopened = make(chan struct{})
	r.cur.Close()
	for c := range r.conns {
		c.Close()
	}
	r.conns = map[net.Conn]struct{}{}
	r.timer = time.AfterFunc(d, r.reopen)
}

// reopen ends a refusal; it retries briefly while the port is still held.
func (r *refusable) reopen() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || !r.refusing {
		return
	}
	r.timer.Stop()
	var l net.Listener
	var err error
	for range 50 {
		if l, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		// Leave the listener refusing; the simulator stays usable otherwise.
		return
	}
	r.cur, r.refusing = l, false
	close(r.reopened)
}

func (r *refusable) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	close(r.done)
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.refusing {
		return nil
	}
	return r.cur.Close()
}

// trackedConn lets refuse close connections accepted before it.
type trackedConn struct {
	net.Conn
	owner *refusable
}

func (c *trackedConn) Close() error {
	if c.owner != nil {
		c.owner.mu.Lock()
		delete(c.owner.conns, c.Conn)
		c.owner.mu.Unlock()
	}
	return c.Conn.Close()
}
