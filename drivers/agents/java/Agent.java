/*
 * A pooltest driver agent for pgjdbc, run with the JDK's single-file source launcher:
 *   java -cp /usr/share/java/postgresql.jar Agent.java
 * Same line protocol as the other agents (see drivers/agents/python/agent.py). Every answer also
 * carries `driverLog`: the ErrorResponses pgjdbc received while the step ran, read from its own
 * java.util.logging output at FINEST. That is how a step that "worked" is seen to have worked
 * only because pgjdbc re-prepared and retried after a server error (26000 in autocommit).
 * JSON is parsed and written by hand here: a single-file program cannot pull in a library.
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.*;
import java.util.*;
import java.util.logging.*;

public class Agent {
  static Connection conn;
  static final List<String> driverLog = new ArrayList<>();
  static List<Map<String, Object>> partial = new ArrayList<>();

  public static void main(String[] args) throws Exception {
    // A driver call blocked on the network reads no stdin: exit as soon as pooltest's process is gone.
    ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
    Thread watch = new Thread(() -> {
      while (true) {
        try { Thread.sleep(500); } catch (InterruptedException e) { return; }
        if (parent == null || !parent.isAlive()) Runtime.getRuntime().halt(1);
      }
    });
    watch.setDaemon(true);
    watch.start();
    Logger pg = Logger.getLogger("org.postgresql");
    pg.setLevel(Level.FINEST);
    pg.setUseParentHandlers(false);
    pg.addHandler(new Handler() {
      public void publish(LogRecord r) {
        String m = new SimpleFormatter().formatMessage(r);
        if (m.contains("<=BE ErrorMessage")) synchronized (driverLog) { driverLog.add(m.trim()); }
      }
      public void flush() {}
      public void close() {}
    });
    String version;
    try {
      version = org.postgresql.util.DriverInfo.DRIVER_VERSION;
    } catch (Throwable t) {
      System.out.println(obj("ok", false, "error", err(t)));
      System.exit(3);
      return;
    }
    System.out.println(obj("ok", true, "driver", "pgjdbc", "version", version));
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      @SuppressWarnings("unchecked")
      Map<String, Object> step = (Map<String, Object>) new Json(line).value();
      synchronized (driverLog) { driverLog.clear(); }
      partial = new ArrayList<>();
      Map<String, Object> answer;
      try {
        answer = run(step);
        answer.put("ok", true);
      } catch (Throwable t) {
        answer = new LinkedHashMap<>();
        answer.put("ok", false);
        answer.put("error", err(t));
        answer.put("runs", partial);
      }
      synchronized (driverLog) { answer.put("driverLog", new ArrayList<>(driverLog)); }
      System.out.println(write(answer));
      System.out.flush();
    }
    // End of input: pooltest is gone or done. Exit even if a driver thread lingers.
    System.exit(0);
  }

  static Map<String, Object> run(Map<String, Object> step) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    switch ((String) step.get("op")) {
      case "connect" -> {
        URI u = new URI((String) step.get("url"));
        Properties p = new Properties();
        String[] ui = u.getRawUserInfo().split(":", 2);
        p.setProperty("user", URLDecoder.decode(ui[0], StandardCharsets.UTF_8));
        if (ui.length > 1) p.setProperty("password", URLDecoder.decode(ui[1], StandardCharsets.UTF_8));
        p.setProperty("connectTimeout", "10");
        p.setProperty("sslmode", "disable");
        Object o = step.get("options");
        if (o instanceof Map<?, ?> m) for (var e : m.entrySet()) p.setProperty(String.valueOf(e.getKey()), str(e.getValue()));
        conn = DriverManager.getConnection("jdbc:postgresql://" + u.getHost() + ":" + u.getPort() + u.getPath(), p);
        conn.setAutoCommit(!Boolean.FALSE.equals(step.get("autocommit")));
      }
      case "query" -> {
        int times = ((Number) step.getOrDefault("times", 1)).intValue();
        boolean tx = Boolean.TRUE.equals(step.get("tx"));
        for (int i = 0; i < times; i++) {
          // prepareStatement per execution, as JdbcTemplate does: pgjdbc's statement cache
          // keeps the execution count, so the 5th use of the same SQL becomes S_N all the same.
          withStatement((String) step.get("sql"), tx, ps -> {
            ps.setInt(1, ((Number) step.get("param")).intValue());
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) partial.add(row(rs));
            }
          });
        }
        out.put("runs", partial);
      }
      case "cursor" -> {
        // fetchSize only makes pgjdbc fetch in batches (a named portal) with autocommit off.
        withStatement((String) step.get("sql"), true, ps -> {
          ps.setFetchSize(((Number) step.get("fetch")).intValue());
          ps.setInt(1, ((Number) step.get("param")).intValue());
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) partial.add(row(rs));
          }
        });
        out.put("runs", partial);
      }
      case "batch" -> {
        // The driver's own batch: addBatch per parameter set, one executeBatch (pgjdbc sends
        // every Bind/Execute and a single Sync; with reWriteBatchedInserts=true it rewrites the
        // INSERTs into multi-row ones first).
        boolean tx = Boolean.TRUE.equals(step.get("tx"));
        List<?> sets = (List<?>) step.get("params");
        withStatement((String) step.get("sql"), tx, ps -> {
          for (Object set : sets) {
            List<?> values = (List<?>) set;
            for (int i = 0; i < values.size(); i++) ps.setInt(i + 1, ((Number) values.get(i)).intValue());
            ps.addBatch();
          }
          ps.executeBatch();
        });
        partial.add(new LinkedHashMap<>(Map.of("api", "executeBatch", "statements", sets.size())));
        out.put("runs", partial);
      }
      case "begin" -> conn.setAutoCommit(false);
      case "commit" -> { conn.commit(); conn.setAutoCommit(true); }
      case "rollback" -> { conn.rollback(); conn.setAutoCommit(true); }
      case "pid" -> {
        try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
          rs.next();
          out.put("pid", rs.getInt(1));
        }
      }
      case "close" -> { if (conn != null) conn.close(); conn = null; }
      default -> throw new IllegalArgumentException("unknown op " + step.get("op"));
    }
    return out;
  }

  /** What a step does with its statement. */
  interface StatementWork {
    void run(PreparedStatement ps) throws SQLException;
  }

  /**
   * Runs `work` on `sql` prepared, inside a transaction of its own when `tx` and autocommit is
   * on (autocommit off for it, then on again); commits when autocommit is off, rolls back on an
   * error. A cursor needs this too: fetchSize fetches in batches only with autocommit off.
   */
  static void withStatement(String sql, boolean tx, StatementWork work) throws SQLException {
    boolean own = tx && conn.getAutoCommit();
    if (own) conn.setAutoCommit(false);
    try (PreparedStatement ps = conn.prepareStatement(jdbcSql(sql))) {
      work.run(ps);
      if (!conn.getAutoCommit()) conn.commit();
    } catch (SQLException e) {
      rollbackQuietly();
      throw e;
    } finally {
      if (own) autoCommitQuietly(true);
    }
  }

  /**
   * A failed step leaves no transaction open, as an application rolls back after an error: an
   * aborted transaction left behind would fail the next step with 25P02 "current transaction is
   * aborted", an error of this agent's, not of the pooler. Errors here are not the step's.
   */
  static void rollbackQuietly() {
    try { if (conn != null && !conn.getAutoCommit()) conn.rollback(); } catch (SQLException ignored) {}
  }

  static void autoCommitQuietly(boolean on) {
    try { if (conn != null) conn.setAutoCommit(on); } catch (SQLException ignored) {}
  }

  /** pooltest's `$n` as JDBC's `?`: each parameter is used once, in order. */
  static String jdbcSql(String sql) { return sql.replaceAll("\\$\\d+", "?"); }

  static Map<String, Object> row(ResultSet rs) throws SQLException {
    Map<String, Object> r = new LinkedHashMap<>();
    ResultSetMetaData md = rs.getMetaData();
    for (int c = 1; c <= md.getColumnCount(); c++) r.put(md.getColumnLabel(c), rs.getObject(c));
    return r;
  }

  static String str(Object v) {
    if (v instanceof Double d && d == Math.rint(d)) return String.valueOf(d.longValue());
    return String.valueOf(v);
  }

  /** The exception as pooltest records it; the server's fields verbatim when it is a PSQLException. */
  static Map<String, Object> err(Throwable t) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("type", t.getClass().getSimpleName());
    String msg = String.valueOf(t.getMessage());
    e.put("message", msg.split("\n")[0]);
    if (t instanceof SQLException s) e.put("sqlstate", s.getSQLState());
    // A failed batch throws BatchUpdateException ("Batch entry 0 ... was aborted"); the server's
    // errors are the exceptions chained to it. The first that is not 25P02 ("current transaction
    // is aborted", what every later statement of the batch gets) is the cause.
    if (t instanceof BatchUpdateException b && b.getNextException() != null) {
      SQLException cause = b.getNextException();
      for (SQLException n = cause; n != null; n = n.getNextException())
        if (!"25P02".equals(n.getSQLState())) { cause = n; break; }
      t = cause;
    }
    if (t instanceof SQLException s && s.getSQLState() != null) e.put("sqlstate", s.getSQLState());
    if (t instanceof org.postgresql.util.PSQLException p && p.getServerErrorMessage() != null)
      e.put("message", p.getServerErrorMessage().getMessage());
    return e;
  }

  static String obj(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return write(m);
  }

  static String write(Object v) {
    if (v == null) return "null";
    if (v instanceof Boolean || v instanceof Integer || v instanceof Long || v instanceof Short) return v.toString();
    if (v instanceof Number n) return Double.isFinite(n.doubleValue()) ? n.toString() : "null";
    if (v instanceof Map<?, ?> m) {
      StringJoiner j = new StringJoiner(",", "{", "}");
      for (var e : m.entrySet()) j.add(write(String.valueOf(e.getKey())) + ":" + write(e.getValue()));
      return j.toString();
    }
    if (v instanceof Collection<?> c) {
      StringJoiner j = new StringJoiner(",", "[", "]");
      for (Object o : c) j.add(write(o));
      return j.toString();
    }
    StringBuilder b = new StringBuilder("\"");
    for (char ch : v.toString().toCharArray()) {
      if (ch == '"' || ch == '\\') b.append('\\').append(ch);
      else if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
      else b.append(ch);
    }
    return b.append('"').toString();
  }

  /** Just enough JSON for pooltest's steps: objects, arrays, strings, numbers, true/false/null. */
  static final class Json {
    final String s;
    int i;
    Json(String s) { this.s = s; }
    void ws() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }
    Object value() {
      ws();
      char c = s.charAt(i);
      if (c == '{') {
        Map<String, Object> m = new LinkedHashMap<>();
        i++; ws();
        if (s.charAt(i) == '}') { i++; return m; }
        while (true) {
          ws(); String k = (String) value(); ws(); i++; // ':'
          m.put(k, value()); ws();
          if (s.charAt(i++) == '}') return m;
        }
      }
      if (c == '[') {
        List<Object> l = new ArrayList<>();
        i++; ws();
        if (s.charAt(i) == ']') { i++; return l; }
        while (true) { l.add(value()); ws(); if (s.charAt(i++) == ']') return l; }
      }
      if (c == '"') {
        StringBuilder b = new StringBuilder();
        i++;
        while (s.charAt(i) != '"') {
          char ch = s.charAt(i++);
          if (ch == '\\') {
            char e = s.charAt(i++);
            switch (e) {
              case 'n' -> b.append('\n');
              case 't' -> b.append('\t');
              case 'r' -> b.append('\r');
              case 'b' -> b.append('\b');
              case 'f' -> b.append('\f');
              case 'u' -> { b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; }
              default -> b.append(e);
            }
          } else b.append(ch);
        }
        i++;
        return b.toString();
      }
      if (s.startsWith("true", i)) { i += 4; return true; }
      if (s.startsWith("false", i)) { i += 5; return false; }
      if (s.startsWith("null", i)) { i += 4; return null; }
      int start = i;
      while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
      return Double.parseDouble(s.substring(start, i));
    }
  }
}
