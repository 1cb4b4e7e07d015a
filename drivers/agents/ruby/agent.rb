# A pooltest driver agent for ruby-pg (same line protocol as drivers/agents/python/agent.py).
# `exec_params` sends an unnamed statement; with the option "prepare": true the agent does what
# Rails does with `prepared_statements: true`: `prepare(name, sql)` once per connection, then
# `exec_prepared`. The name is fixed, as Rails' a1, a2... are the same in every process.
require 'json'

begin
  require 'pg'
rescue LoadError => e
  puts JSON.generate({ ok: false, error: { type: e.class.name, message: e.message } })
  exit 3
end

STATEMENT = 'pooltest_a1'
# The batch's statement, prepared apart: pooltest_a1 holds the other phases' query.
BATCH_STATEMENT = 'pooltest_a2'

# The answer of a batch the installed ruby-pg or libpq cannot send: pooltest reports the reason.
class Unsupported < StandardError; end

class Agent
  attr_accessor :partial

  def connect(step)
    @conn = PG.connect(step['url'], connect_timeout: 10)
    @prepare = (step['options'] || {})['prepare'] == true
    @prepared = false
    @batch_prepared = false
    {}
  end

  def execute(sql, param)
    return @conn.exec_params(sql, [param]) unless @prepare

    unless @prepared
      @conn.prepare(STATEMENT, sql)
      @prepared = true
    end
    @conn.exec_prepared(STATEMENT, [param])
  end

  def query(step)
    step.fetch('times', 1).times do
      @conn.exec('BEGIN') if step['tx']
      r = execute(step['sql'], step['param'])
      @partial << r[0].transform_values { |v| v =~ /\A-?\d+\z/ ? v.to_i : v }
      @conn.exec('COMMIT') if step['tx']
    end
    { runs: @partial }
  end

  # Pipeline mode (ruby-pg >= 1.3 on libpq >= 14): every statement is sent without waiting, then
  # one pipeline_sync; the results are read in order, each followed by nil, then the sync's.
  def batch(step)
    unless @conn.respond_to?(:enter_pipeline_mode) && PG.library_version >= 140_000
      raise Unsupported, "ruby-pg #{PG::VERSION} on libpq #{PG.library_version} has no pipeline mode (ruby-pg 1.3+ and libpq 14+)"
    end

    params = step['params']
    first_error = nil
    @conn.enter_pipeline_mode
    begin
      @conn.send_query_params('BEGIN', []) if step['tx']
      if @prepare && !@batch_prepared
        @conn.send_prepare(BATCH_STATEMENT, step['sql'])
        @batch_prepared = true
      end
      params.each do |p|
        @prepare ? @conn.send_query_prepared(BATCH_STATEMENT, p) : @conn.send_query_params(step['sql'], p)
      end
      @conn.send_query_params('COMMIT', []) if step['tx']
      @conn.pipeline_sync
      loop do
        r = @conn.get_result
        next if r.nil?
        break if r.result_status == PG::PGRES_PIPELINE_SYNC

        begin
          r.check
        rescue PG::Error => e
          first_error ||= e
        end
      end
    ensure
      @conn.exit_pipeline_mode rescue nil
    end
    if first_error
      # An error inside BEGIN ... COMMIT leaves the transaction aborted: end it for the next step.
      @conn.exec('ROLLBACK') rescue nil if step['tx']
      raise first_error
    end
    { runs: [{ api: 'pipeline mode', statements: params.length }] }
  end

  def begin(_) = (@conn.exec('BEGIN'); {})
  def commit(_) = (@conn.exec('COMMIT'); {})
  def rollback(_) = (@conn.exec('ROLLBACK'); {})
  def pid(_) = { pid: @conn.exec('SELECT pg_backend_pid() AS pid')[0]['pid'].to_i }

  def close(_)
    @conn&.close
    @conn = nil
    {}
  end
end

def error_of(e)
  out = { type: e.class.name, message: e.message.lines.first.to_s.strip }
  if e.respond_to?(:result) && e.result
    out[:sqlstate] = e.result.error_field(PG::PG_DIAG_SQLSTATE)
    out[:message] = e.result.error_field(PG::PG_DIAG_MESSAGE_PRIMARY)
  end
  out
end

# The line loop, shared with the ActiveRecord agent (activerecord.rb): the hello, then one
# answer per step, the driver's or framework's exception as its answer.
def serve(agent, hello, errors: method(:error_of))
  $stdout.sync = true
  # A driver call blocked on the network reads no stdin: exit as soon as pooltest's process is gone.
  parent = Process.ppid
  Thread.new do
    loop do
      sleep 0.5
      exit!(1) if Process.ppid != parent
    end
  end
  puts JSON.generate(hello)
  $stdin.each_line do |line|
    next if line.strip.empty?

    step = JSON.parse(line)
    agent.partial = []
    begin
      puts JSON.generate({ ok: true }.merge(agent.public_send(step['op'], step)))
    rescue StandardError => e
      puts JSON.generate({ ok: false, error: errors.call(e), runs: agent.partial })
    end
  end
end

serve(Agent.new, { ok: true, driver: 'ruby-pg', version: PG::VERSION }) if $PROGRAM_NAME == __FILE__
