// Command dorissim runs the Doris 5.0 simulator until SIGINT/SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	_ "net/http/pprof" // served only with --pprof
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim"
	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/connpool"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("dorissim", flag.ContinueOnError)
	host := fs.String("host", "127.0.0.1", "address to listen on and advertise")
	httpPort := fs.Int("http-port", 8030, "FE HTTP port (0 = free port)")
	mysqlPort := fs.Int("mysql-port", 9030, "FE MySQL port (0 = free port)")
	flightPort := fs.Int("flight-port", 9611, "FE Arrow Flight SQL port (0 = free port)")
	beFlightPort := fs.Int("be-flight-port", 9612, "BE Arrow Flight port (0 = free port)")
	user := fs.String("user", "root", "user name")
	password := fs.String("password", "", "password")
	visibleWait := fs.Duration("visible-wait-timeout", 5*time.Second, "visible wait timeout of @incr reads")
	demo := fs.Bool("demo", false, "create demo.orders with 1,000 rows and change it every second")
	timeZone := fs.String("time-zone", "", "the FE's global time_zone: an IANA name (America/New_York) or an offset (+08:00); default: the host's zone (TZ, else /etc/localtime), as a Doris FE starts")
	pprofAddr := fs.String("pprof", "", "address to serve Go's /debug/pprof on, for profiling the simulator in benchmarks (e.g. 127.0.0.1:6061); off by default")
	clockStart := fs.String("clock-start", "", "RFC 3339 instant the simulator clock starts at, then runs at normal speed (e.g. 2026-11-01T05:59:30Z)")
	qeMaxConn := fs.Int("qe-max-connection", connpool.DefaultMaxConnections, "qe_max_connection: the most MySQL connections and Arrow Flight SQL sessions the FE holds at once")
	flightMaxConn := fs.Int("arrow-flight-max-connections", -1, "arrow_flight_max_connections: the most Arrow Flight SQL sessions among them; negative: half of -qe-max-connection")
	userMaxConn := fs.Int("max-user-connections", connpool.DefaultUserMaxConnections, "max_user_connections of the user until SET PROPERTY changes it (1..10000)")
	waitTimeout := fs.Duration("wait-timeout", connpool.DefaultWaitTimeout, "wait_timeout: a connection or Flight session idle for longer is ended")
	preTimeTravel := fs.Bool("pre-time-travel-fe", false, "act as an FE from before OLAP time travel: FOR VERSION AS OF is ignored (current data is read) and tables have no __DORIS_COMMIT_TSO_COL__; the fault pre_time_travel_fe switches it at run time")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger := log.New(os.Stderr, "", log.LstdFlags)
	if *pprofAddr != "" {
		go func() { logger.Printf("dorissim: pprof: %v", http.ListenAndServe(*pprofAddr, nil)) }()
	}
	var start time.Time
	if *clockStart != "" {
		t, err := time.Parse(time.RFC3339Nano, *clockStart)
		if err != nil {
			logger.Printf("dorissim: --clock-start must be an RFC 3339 instant such as 2026-11-01T05:59:30Z: %v", err)
			return 2
		}
		start = t
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	srv, err := dorissim.Start(startCtx, dorissim.Config{
		Host: *host, HTTPPort: *httpPort, MySQLPort: *mysqlPort, FlightPort: *flightPort, BEFlightPort: *beFlightPort,
		User: *user, Password: *password, VisibleWaitTimeout: *visibleWait, Demo: *demo, Logf: logger.Printf,
		TimeZone: *timeZone, ClockStart: start,
		QEMaxConnection: *qeMaxConn, ArrowFlightMaxConnections: *flightMaxConn, MaxUserConnections: *userMaxConn,
		WaitTimeout: *waitTimeout, PreTimeTravelFE: *preTimeTravel,
	})
	cancel()
	if err != nil {
		logger.Printf("dorissim: %v", err)
		return 1
	}
	fmt.Printf("dorissim ready http=%s mysql=%s flight=%s be_flight=%s\n",
		srv.HTTPAddr(), srv.MySQLAddr(), srv.FlightAddr(), srv.BEFlightAddr())
	<-ctx.Done()
	logger.Printf("dorissim: shutting down")
	if err := srv.Close(); err != nil {
		logger.Printf("dorissim: close: %v", err)
		return 1
	}
	return 0
}
