package sqlengine

import (
	"errors"
	"net"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/connpool"
)

// pooledAuthServer admits each authenticated MySQL connection into the
// FE's connection pool, where Doris's AcceptListener does: after
// MysqlProto.negotiate has authenticated the user, registerConnection
// either takes a slot or the client is answered error 1203 in place of
// the OK packet and the connection is closed.
type pooledAuthServer struct {
	*authServer
	pool *connpool.Pool
}

func (a *pooledAuthServer) AuthMethods() []mysql.AuthMethod {
	methods := a.authServer.AuthMethods()
	out := make([]mysql.AuthMethod, len(methods))
	for i, m := range methods {
		out[i] = pooledAuthMethod{AuthMethod: m, pool: a.pool}
	}
	return out
}

type pooledAuthMethod struct {
	mysql.AuthMethod
	pool *connpool.Pool
}

// HandleAuthPluginData authenticates, then registers the connection. The
// slot it takes travels in the connection's UserData until
// ConnectionClosed gives it back; a refused connection takes none.
func (m pooledAuthMethod) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, addr net.Addr) (mysql.Getter, error) {
	g, err := m.AuthMethod.HandleAuthPluginData(c, user, serverData, clientData, addr)
	if err != nil {
		return nil, err
	}
	// wait_timeout ends an idle connection by closing it; the read loop
	// then ends and ConnectionClosed runs.
	pc, err := m.pool.Register(user, connpool.MySQL, c.Close)
	if err != nil {
		var le *connpool.LimitError
		if errors.As(err, &le) {
			return nil, mysql.NewSQLError(connpool.ErrTooManyUserConnections, connpool.SQLStateTooManyConnections, "%s", le.Error())
		}
		return nil, err
	}
	return &pooledUser{Getter: g, conn: pc}, nil
}

// pooledUser is an admitted connection's user data.
type pooledUser struct {
	mysql.Getter
	conn *connpool.Conn
}

// poolConn is the slot of c, nil before c is authenticated.
func poolConn(c *mysql.Conn) *connpool.Conn {
	if u, ok := c.UserData.(*pooledUser); ok {
		return u.conn
	}
	return nil
}

// busy marks c as running a command, for wait_timeout, until the returned
// func is called.
func busy(c *mysql.Conn) func() {
	if pc := poolConn(c); pc != nil {
		return pc.Begin()
	}
	return func() {}
}
