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
require 'fileutils'
require 'tmpdir'
require 'zlib'

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
    ActiveRecord::Migration.verbose = false # its report goes to stdout, which is the protocol's
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

  # A migration run as `rails db:migrate` runs it (ActiveRecord::MigrationContext#migrate over a
  # folder of migration files), in two steps so that pooltest can steer in between:
  #
  #   {"op": "migrate", "prefix": "pooltest_<hash>_"}  starts it; answers from inside the
  #       migration's `up` (its DDL transaction): the backend it runs on, and the backend holding
  #       the migrator's advisory lock (pg_locks), both read by statements ActiveRecord sends,
  #       and whether the migrator locks at all (advisory_locks)
  #   {"op": "migrate"}  lets `up` return; answers when the migrator is done (or raised)
  #
  # With advisory_locks on (the default) ActiveRecord 6.1 takes pg_try_advisory_lock on a
  # connection of its own before the migrations and pg_advisory_unlock on it afterwards; false
  # from the unlock is its "Failed to release advisory lock". The bookkeeping tables get the
  # run's prefix, so nothing of the application's is touched (pooltest drops them afterwards).
  def migrate(step)
    return finish_migration if @migration

    prefix = step.fetch('prefix')
    ActiveRecord::Base.schema_migrations_table_name = "#{prefix}schema_migrations"
    ActiveRecord::Base.internal_metadata_table_name = "#{prefix}ar_internal_metadata"
    dir = Dir.mktmpdir('pooltest-migrations')
    File.write(File.join(dir, '20260101000000_pooltest_probe.rb'), <<~RUBY)
      class PooltestProbe < ActiveRecord::Migration[6.1]
        def up
          $pooltest_migration.call(self)
        end
      end
    RUBY
    reported = Queue.new
    go = Queue.new
    lock_id = ActiveRecord::Migrator::MIGRATOR_SALT * Zlib.crc32(ActiveRecord::Base.connection.current_database)
    $pooltest_migration = lambda do |m|
      pid = m.select_value('SELECT pg_backend_pid()').to_i
      holder = m.select_value(<<~SQL)
        SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
        AND ((classid::bigint << 32) | objid::bigint) = #{lock_id}
      SQL
      locking = ActiveRecord::Base.connection.advisory_locks_enabled?
      reported << { pid: pid, lockPid: holder&.to_i, lockId: lock_id.to_s, locking: locking }
      go.pop
    end
    thread = Thread.new do
      ActiveRecord::MigrationContext.new(dir, ActiveRecord::SchemaMigration).migrate
      reported << :done
      nil
    rescue StandardError => e
      reported << :done
      e
    ensure
      FileUtils.rm_rf(dir)
    end
    @migration = { thread: thread, go: go }
    report = reported.pop
    return { runs: [report], pid: report[:pid] } if report.is_a?(Hash)

    finish_migration # it ended before `up`: its error is the answer
  end

  def finish_migration
    migration = @migration
    @migration = nil
    migration[:go] << true
    error = migration[:thread].value
    raise error if error

    { runs: [{ migrated: true }] }
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
  # MigrationError pads its message with blank lines: the first line that says something.
  out = { type: e.class.name, message: e.message.lines.map(&:strip).find { |l| !l.empty? }.to_s }
  cause = e.cause
  out[:sqlstate] = cause.result.error_field(PG::PG_DIAG_SQLSTATE) if cause.respond_to?(:result) && cause.result
  out
end

if $PROGRAM_NAME == __FILE__
  serve(ActiveRecordAgent.new, { ok: true, driver: 'activerecord', version: ActiveRecord::VERSION::STRING },
        errors: method(:ar_error_of))
end
