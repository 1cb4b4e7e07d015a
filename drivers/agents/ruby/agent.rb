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

class Agent
  attr_accessor :partial

  def connect(step)
    @conn = PG.connect(step['url'], connect_timeout: 10)
    @prepare = (step['options'] || {})['prepare'] == true
    @prepared = false
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
