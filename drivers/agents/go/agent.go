// A pooltest driver agent for Go's pgx (v4, Debian's golang-github-jackc-pgx-v4-dev), with the
// line protocol of drivers/agents/python/agent.py: one JSON step a line on stdin, one JSON
// answer a line on stdout, the driver's error class, message and SQLSTATE verbatim.
//
// The options of a configuration are pgx's own connection-string keywords
// (statement_cache_capacity, statement_cache_mode, prefer_simple_protocol), appended to the
// URL as an application would write them. By default pgx v4 keeps an LRU statement cache per
// connection (capacity 512) and names each statement lrupsc_<cache>_<n>, where <cache> counts
// the caches of the process: every process's first connection prepares lrupsc_1_0.
// The batch op (the protocol of branch driver-batches) is pgx's SendBatch.
//
// drivers/go-agent.ts compiles this file once per source hash, offline, against Debian's Go
// sources (GOPATH=/usr/share/gocode, GO111MODULE=off), and passes pgx's version with -X.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
)

// pgxVersion is set at build time from the Debian package (the import path only says v4).
var pgxVersion = "4"

type step struct {
	Op      string                 `json:"op"`
	URL     string                 `json:"url"`
	Options map[string]interface{} `json:"options"`
	SQL     string                 `json:"sql"`
	Param   int                    `json:"param"`
	Times   int                    `json:"times"`
	Tx      bool                   `json:"tx"`
	Params  [][]interface{}        `json:"params"`
}

type agent struct {
	conn *pgx.Conn
	tx   pgx.Tx
	runs []map[string]interface{}
}

// A bound of its own for each driver call, beside pooltest's (which kills the process).
func bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 60*time.Second)
}

// withOptions appends the configuration's keywords to the URL's query, in a stable order.
func withOptions(raw string, options map[string]interface{}) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	q := u.Query()
	keys := make([]string, 0, len(options))
	for k := range options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		q.Set(k, fmt.Sprint(options[k]))
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func (a *agent) connect(s step) (map[string]interface{}, error) {
	conninfo, err := withOptions(s.URL, s.Options)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a.conn, err = pgx.Connect(ctx, conninfo)
	return map[string]interface{}{}, err
}

// row reads the query's first row as column name -> value.
func (a *agent) row(ctx context.Context, q func(context.Context, string, ...interface{}) (pgx.Rows, error), s step) (map[string]interface{}, error) {
	rows, err := q(ctx, s.SQL, s.Param)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]interface{}{}
	if rows.Next() {
		values, err := rows.Values()
		if err != nil {
			return nil, err
		}
		for i, f := range rows.FieldDescriptions() {
			out[string(f.Name)] = values[i]
		}
	}
	rows.Close()
	return out, rows.Err()
}

func (a *agent) query(s step) (map[string]interface{}, error) {
	times := s.Times
	if times < 1 {
		times = 1
	}
	for i := 0; i < times; i++ {
		ctx, cancel := bounded()
		r, err := a.unit(ctx, s)
		cancel()
		if err != nil {
			return nil, err
		}
		a.runs = append(a.runs, r)
	}
	return map[string]interface{}{"runs": a.runs}, nil
}

// unit is one use of the query: alone (autocommit), or in a transaction of its own with tx.
func (a *agent) unit(ctx context.Context, s step) (map[string]interface{}, error) {
	if !s.Tx {
		return a.row(ctx, a.conn.Query, s)
	}
	tx, err := a.conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	r, err := a.row(ctx, tx.Query, s)
	if err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	return r, tx.Commit(ctx)
}

// batch queues every parameter set and sends them with pgx's own SendBatch: one round trip
// of Bind/Execute messages and a single Sync (after, in the default configuration, a round
// trip that prepares the batch's statement through the cache). With tx, inside one transaction.
func (a *agent) batch(s step) (map[string]interface{}, error) {
	ctx, cancel := bounded()
	defer cancel()
	b := &pgx.Batch{}
	for _, params := range s.Params {
		b.Queue(s.SQL, integral(params)...)
	}
	send := a.conn.SendBatch
	var tx pgx.Tx
	if s.Tx {
		var err error
		if tx, err = a.conn.Begin(ctx); err != nil {
			return nil, err
		}
		send = tx.SendBatch
	}
	results := send(ctx, b)
	var err error
	for range s.Params {
		if _, err = results.Exec(); err != nil {
			break
		}
	}
	if closeErr := results.Close(); err == nil {
		err = closeErr
	}
	if tx != nil {
		if err != nil {
			_ = tx.Rollback(ctx)
			return nil, err
		}
		err = tx.Commit(ctx)
	}
	if err != nil {
		return nil, err
	}
	return map[string]interface{}{"runs": []map[string]interface{}{{"api": "SendBatch", "statements": len(s.Params)}}}, nil
}

// integral gives JSON's whole numbers (float64 in Go) as int64, as an application passes them.
func integral(params []interface{}) []interface{} {
	out := make([]interface{}, len(params))
	for i, p := range params {
		if f, ok := p.(float64); ok && f == float64(int64(f)) {
			out[i] = int64(f)
		} else {
			out[i] = p
		}
	}
	return out
}

func (a *agent) begin(step) (map[string]interface{}, error) {
	ctx, cancel := bounded()
	defer cancel()
	var err error
	a.tx, err = a.conn.Begin(ctx)
	return map[string]interface{}{}, err
}

func (a *agent) end(commit bool) (map[string]interface{}, error) {
	if a.tx == nil {
		return nil, errors.New("no transaction is open")
	}
	ctx, cancel := bounded()
	defer cancel()
	tx := a.tx
	a.tx = nil
	if commit {
		return map[string]interface{}{}, tx.Commit(ctx)
	}
	return map[string]interface{}{}, tx.Rollback(ctx)
}

// pid asks with the simple protocol: pooltest's own question must not add a cached statement.
func (a *agent) pid(step) (map[string]interface{}, error) {
	ctx, cancel := bounded()
	defer cancel()
	var pid int32
	err := a.conn.QueryRow(ctx, "SELECT pg_backend_pid() AS pid", pgx.QuerySimpleProtocol(true)).Scan(&pid)
	return map[string]interface{}{"pid": pid}, err
}

func (a *agent) close(step) (map[string]interface{}, error) {
	if a.conn == nil {
		return map[string]interface{}{}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := a.conn.Close(ctx)
	a.conn = nil
	return map[string]interface{}{}, err
}

func errorOf(err error) map[string]interface{} {
	out := map[string]interface{}{"type": fmt.Sprintf("%T", err), "message": strings.SplitN(err.Error(), "\n", 2)[0]}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		out["type"] = "*pgconn.PgError"
		out["message"] = pgErr.Message
		out["sqlstate"] = pgErr.Code
	}
	return out
}

func say(out *json.Encoder, v map[string]interface{}) {
	_ = out.Encode(v) // Encode ends each answer with a newline
}

func main() {
	out := json.NewEncoder(os.Stdout)
	// A driver call blocked on the network reads no stdin: exit as soon as pooltest's process is gone.
	parent := os.Getppid()
	go func() {
		for {
			time.Sleep(500 * time.Millisecond)
			if os.Getppid() != parent {
				os.Exit(1)
			}
		}
	}()
	say(out, map[string]interface{}{"ok": true, "driver": "pgx", "version": pgxVersion})
	a := &agent{}
	ops := map[string]func(step) (map[string]interface{}, error){
		"connect":  a.connect,
		"query":    a.query,
		"batch":    a.batch,
		"begin":    a.begin,
		"commit":   func(step) (map[string]interface{}, error) { return a.end(true) },
		"rollback": func(step) (map[string]interface{}, error) { return a.end(false) },
		"pid":      a.pid,
		"close":    a.close,
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var s step
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			say(out, map[string]interface{}{"ok": false, "error": errorOf(err)})
			continue
		}
		a.runs = []map[string]interface{}{}
		op, known := ops[s.Op]
		if !known {
			say(out, map[string]interface{}{"ok": false, "error": map[string]interface{}{"type": "protocol", "message": "unknown op " + s.Op}})
			continue
		}
		if a.conn == nil && s.Op != "connect" && s.Op != "close" {
			say(out, map[string]interface{}{"ok": false, "error": map[string]interface{}{"type": "protocol", "message": "not connected"}, "runs": a.runs})
			continue
		}
		answer, err := op(s)
		if err != nil {
			say(out, map[string]interface{}{"ok": false, "error": errorOf(err), "runs": a.runs})
			continue
		}
		answer["ok"] = true
		say(out, answer)
	}
}
