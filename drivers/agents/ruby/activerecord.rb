# A pooltest agent for Rails' ActiveRecord (same line protocol as drivers/agents/python/agent.py),
# used as an application uses it, without a Rails app: establish_connection with the options it
# is given (prepared_statements, advisory_locks: what database.yml would say) and a model.
#
# The query step is a model query ActiveRecord builds itself, with binds:
#
#   SELECT "pg_stat_activity"."pid", ($1 + 0) AS "answer" FROM "pg_stat_activity"
#   WHERE "pg_stat_activity"."state" = $2 AND "pg_stat_activity"."pid" = pg_backend_pid()
#   /* <marker> */ LIMIT $3
#
# The row is this backend's own (pg_stat_activity always shows the session asking, active), so
# every run proves where ActiveRecord's statement ran. With prepared_statements (the default)
# ActiveRecord prepares it once per connection as a1 and then only executes a1; the marker
# (the step's SQL comment, added with `annotate`) lets pooltest deallocate it afterwards.
require_relative 'agent'
require 'uri'

begin
  require 'active_record'
rescue LoadError => e
  puts JSON.generate({ ok: false, error: { type: e.class.name, message: e.message } })
  exit 3
end

# pg_stat_activity read as a model: a table every login can read and nothing has to create.
class Backend < ActiveRecord::Base
  self.table_name = 'pg_stat_activity'
  self.primary_key = 'pid'
end

class ActiveRecordAgent
  attr_accessor :partial

  def connect(step)
    options = (step['options'] || {}).transform_keys(&:to_sym)
    ActiveRecord::Base.logger = nil
    ActiveRecord::Base.establish_connection(url: step['url'], connect_timeout: 10, **options)
    ActiveRecord::Base.connection.verify!
    {}
  end

  def query(step)
    marker = step['sql'][%r{/\*\s*(.*?)\s*\*/}, 1]
    step.fetch('times', 1).times do
      row = step['tx'] ? ActiveRecord::Base.transaction { own_row(step['param'], marker) } : own_row(step['param'], marker)
      @partial << { pid: row&.pid, answer: row&.attributes&.fetch('answer', nil) }
    end
    { runs: @partial }
  end

  # Built from Arel nodes, not SQL strings: ActiveRecord prepares only what its visitor could
  # build itself (a literal SQL fragment anywhere makes the query unpreparable, and it is sent
  # unnamed), and the point is the statement a model query really gets.
  def own_row(answer, marker)
    t = Backend.arel_table
    backend_pid = Arel::Nodes::NamedFunction.new('pg_backend_pid', [])
    bound = ActiveRecord::Relation::QueryAttribute.new('answer', Integer(answer), ActiveModel::Type::Integer.new)
    echo = Arel::Nodes::As.new(
      Arel::Nodes::Grouping.new(Arel::Nodes::Addition.new(Arel::Nodes::BindParam.new(bound), 0)),
      Arel::Nodes::UnqualifiedColumn.new(t[:answer]),
    )
    Backend.where(state: 'active').where(t[:pid].eq(backend_pid)).select(t[:pid], echo).annotate(marker).take
  end

  def pid(_) = { pid: ActiveRecord::Base.connection.select_value('SELECT pg_backend_pid()').to_i }

  def close(_)
    ActiveRecord::Base.connection_handler.clear_all_connections!
    {}
  end
end

# ActiveRecord's own exception (class and message, as the application sees it), with the
# server's SQLSTATE from the driver error underneath when there is one.
def ar_error_of(e)
  out = { type: e.class.name, message: e.message.lines.first.to_s.strip }
  cause = e.cause
  out[:sqlstate] = cause.result.error_field(PG::PG_DIAG_SQLSTATE) if cause.respond_to?(:result) && cause.result
  out
end

if $PROGRAM_NAME == __FILE__
  serve(ActiveRecordAgent.new, { ok: true, driver: 'activerecord', version: ActiveRecord::VERSION::STRING },
        errors: method(:ar_error_of))
end
