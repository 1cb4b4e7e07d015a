<?php
// A pooltest driver agent for PHP's PDO pgsql driver (Debian php-cli, php-pgsql), with the line
// protocol of drivers/agents/python/agent.py: one JSON step a line on stdin, one JSON answer a
// line on stdout, the driver's error and SQLSTATE verbatim.
//
// The application's pattern is the common one: `$pdo->prepare($sql)` once per connection and
// `execute()` at each use. With native prepares (PDO's default) the first execute prepares the
// statement as pdo_stmt_<8 hex digits>, from a counter per connection, so every process's first
// statement is pdo_stmt_00000001; when the server answers 42P05 ("already exists") PDO sends
// `DEALLOCATE` for that name and prepares again, without telling the application; a statement
// object that goes away is freed with SQL `DEALLOCATE`. The options are PDO attribute names
// (`ATTR_EMULATE_PREPARES`, `PGSQL_ATTR_DISABLE_PREPARES`), set on the connection.
//
// The cursor is PDO's scrollable one (PDO::ATTR_CURSOR => PDO::CURSOR_SCROLL): `DECLARE
// pdo_crsr_<n> SCROLL CURSOR WITH HOLD`, one `FETCH NEXT` per row, `CLOSE` when the statement
// goes; PDO interpolates its parameters on the client. It is read in a transaction and closed
// before the COMMIT: a WITH HOLD cursor closed after it could be closed on another backend, and
// stay open on its own.

function say(array $answer): void
{
    fwrite(STDOUT, json_encode($answer) . "\n");
}

function error_of(Throwable $e): array
{
    $out = ['type' => get_class($e), 'message' => strtok($e->getMessage(), "\n")];
    if ($e instanceof PDOException && is_array($e->errorInfo) && isset($e->errorInfo[0])) {
        $out['sqlstate'] = $e->errorInfo[0];
        // errorInfo[2] is libpq's message: "ERROR:  prepared statement ... does not exist\n..."
        if (isset($e->errorInfo[2]) && is_string($e->errorInfo[2])) {
            $out['message'] = preg_replace('/^(ERROR|FATAL):\s+/', '', strtok($e->errorInfo[2], "\n"));
        }
    }
    return $out;
}

/** PDO binds `?`: pooltest's steps carry PostgreSQL's `$1`. */
function placeholders(string $sql): string
{
    return preg_replace('/\$\d+/', '?', $sql);
}

/** Integers as numbers (pdo_pgsql gives them as strings on some PHP versions). */
function row_of(array $row): array
{
    foreach ($row as $k => $v) {
        if (is_string($v) && preg_match('/^-?\d+$/', $v)) {
            $row[$k] = (int) $v;
        }
    }
    return $row;
}

/** The answer of an op the driver has no API for: pooltest reports the reason. */
final class Unsupported extends RuntimeException
{
}

final class Agent
{
    private ?PDO $pdo = null;
    /** @var array<string, PDOStatement> the application's statements, one per SQL text */
    private array $statements = [];
    public array $partial = [];

    public function connect(array $step): array
    {
        $u = parse_url($step['url']);
        parse_str($u['query'] ?? '', $query);
        $dsn = sprintf(
            'pgsql:host=%s;port=%d;dbname=%s;connect_timeout=10;sslmode=%s',
            trim($u['host'], '[]'),
            $u['port'] ?? 5432,
            rawurldecode(ltrim($u['path'] ?? '', '/')),
            $query['sslmode'] ?? 'prefer'
        );
        $options = [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION];
        foreach ($step['options'] ?? [] as $name => $value) {
            $options[constant("PDO::$name")] = $value;
        }
        $this->pdo = new PDO(
            $dsn,
            rawurldecode($u['user'] ?? ''),
            isset($u['pass']) ? rawurldecode($u['pass']) : null,
            $options
        );
        return [];
    }

    private function statement(string $sql): PDOStatement
    {
        return $this->statements[$sql] ??= $this->pdo->prepare(placeholders($sql));
    }

    public function query(array $step): array
    {
        for ($i = 0; $i < ($step['times'] ?? 1); $i++) {
            if (!empty($step['tx'])) {
                $this->pdo->beginTransaction();
            }
            $stmt = $this->statement($step['sql']);
            $stmt->execute([$step['param']]);
            $this->partial[] = row_of($stmt->fetch(PDO::FETCH_ASSOC));
            $stmt->closeCursor();
            if (!empty($step['tx'])) {
                $this->pdo->commit();
            }
        }
        return ['runs' => $this->partial];
    }

    public function cursor(array $step): array
    {
        $this->pdo->beginTransaction();
        $stmt = $this->pdo->prepare(placeholders($step['sql']), [PDO::ATTR_CURSOR => PDO::CURSOR_SCROLL]);
        $stmt->execute([$step['param']]);
        while (($row = $stmt->fetch(PDO::FETCH_ASSOC, PDO::FETCH_ORI_NEXT)) !== false) {
            $this->partial[] = row_of($row);
        }
        $stmt = null; // CLOSE pdo_crsr_<n>, inside the transaction
        $this->pdo->commit();
        return ['runs' => $this->partial];
    }

    /** The batch op (drivers/agents/python/agent.py): PDO has none to offer. */
    public function batch(array $step): array
    {
        throw new Unsupported('PDO has no batch or pipeline API: every execute() waits for its answer before the next is sent');
    }

    public function begin(array $step): array
    {
        $this->pdo->beginTransaction();
        return [];
    }

    public function commit(array $step): array
    {
        $this->pdo->commit();
        return [];
    }

    public function rollback(array $step): array
    {
        $this->pdo->rollBack();
        return [];
    }

    public function pid(array $step): array
    {
        return ['pid' => (int) $this->pdo->query('SELECT pg_backend_pid()')->fetchColumn()];
    }

    public function close(array $step): array
    {
        // The statements go first (PDO sends DEALLOCATE for each), as an application's would.
        $this->statements = [];
        $this->pdo = null;
        return [];
    }
}

if (!extension_loaded('pdo_pgsql')) {
    say(['ok' => false, 'error' => ['type' => 'MissingExtension', 'message' => 'pdo_pgsql is not loaded (Debian php-pgsql)']]);
    exit(3);
}
// A driver call blocked on the network reads no stdin: exit as soon as pooltest's process is gone.
// (No threads in PHP: libpq's connect_timeout and pooltest's kill bound the calls instead.)
$libpq = defined('PGSQL_LIBPQ_VERSION') ? PGSQL_LIBPQ_VERSION : null;
say(['ok' => true, 'driver' => 'pdo-pgsql', 'version' => PHP_VERSION . ($libpq ? " (libpq $libpq)" : '')]);
$agent = new Agent();
while (($line = fgets(STDIN)) !== false) {
    if (trim($line) === '') {
        continue;
    }
    $step = json_decode($line, true);
    $agent->partial = [];
    try {
        $op = $step['op'] ?? '';
        if (!method_exists($agent, $op)) {
            throw new InvalidArgumentException("unknown op $op");
        }
        say(['ok' => true] + $agent->$op($step));
    } catch (Throwable $e) {
        say(['ok' => false, 'error' => error_of($e), 'runs' => $agent->partial]);
    }
}
