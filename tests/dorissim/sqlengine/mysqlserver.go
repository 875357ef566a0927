package sqlengine

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"

	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// ServeMySQL serves the MySQL protocol on l (TLS when tlsConf is set) until
// CloseMySQL or Close. Every statement goes through Session.Query, so the
// wire sees exactly what in-process sessions see.
func (e *Engine) ServeMySQL(l net.Listener, tlsConf *tls.Config) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return errors.New("sqlengine: engine closed")
	}
	e.mu.Unlock()
	cfg := server.Config{
		Protocol:  "tcp",
		Address:   l.Addr().String(),
		Listener:  l,
		TLSConfig: tlsConf,
		Version:   "5.7.99",
		ProtocolListenerFactory: func(cfg server.Config, lc mysql.ListenerConfig, sel server.ServerEventListener) (server.ProtocolListener, error) {
			lc.AuthServer = &pooledAuthServer{authServer: &authServer{eng: e}, pool: e.cfg.Pool}
			return server.MySQLProtocolListenerFactory(cfg, lc, sel)
		},
	}
	h := &handler{eng: e}
	srv, err := server.NewServerWithHandler(cfg, e.gms, sql.NewContext, noSessionBuilder, nil,
		func(mysql.Handler) (mysql.Handler, error) { return h, nil })
	if err != nil {
		return err
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		srv.Listener.Close()
		return errors.New("sqlengine: engine closed")
	}
	e.servers = append(e.servers, srv)
	e.mu.Unlock()
	return srv.Start()
}

// CloseMySQL stops every MySQL listener started by ServeMySQL.
func (e *Engine) CloseMySQL() error {
	e.mu.Lock()
	servers := e.servers
	e.servers = nil
	e.mu.Unlock()
	for _, s := range servers {
		s.Listener.Close()
	}
	return nil
}

// noSessionBuilder is never used: the handler creates simulator sessions
// itself, but GMS's server constructor requires a builder.
func noSessionBuilder(ctx context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
	return nil, errors.New("sqlengine: GMS sessions are not used")
}

// authServer checks the configured account with mysql_native_password.
type authServer struct{ eng *Engine }

func (a *authServer) AuthMethods() []mysql.AuthMethod {
	return []mysql.AuthMethod{mysql.NewMysqlNativeAuthMethod(a, a)}
}

func (a *authServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.MysqlNativePassword
}

func (a *authServer) HandleUser(string, net.Addr) bool { return true }

// UserEntryWithHash verifies the scramble the client computed from the salt.
func (a *authServer) UserEntryWithHash(_ []*x509.Certificate, salt []byte, user string, authResponse []byte, _ net.Addr) (mysql.Getter, error) {
	if subtle.ConstantTimeCompare([]byte(user), []byte(a.eng.cfg.User)) != 1 || !nativeMatch(salt, authResponse, a.eng.cfg.Password) {
		return nil, mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError, "Access denied for user '%v'", user)
	}
	return &userGetter{user: user}, nil
}

func nativeMatch(salt, reply []byte, password string) bool {
	if password == "" {
		return len(reply) == 0
	}
	if len(reply) == 0 {
		return false
	}
	return subtle.ConstantTimeCompare(mysql.ScrambleMysqlNativePassword(salt, []byte(password)), reply) == 1
}

type userGetter struct{ user string }

func (g *userGetter) Get() *querypb.VTGateCallerID { return &querypb.VTGateCallerID{Username: g.user} }
