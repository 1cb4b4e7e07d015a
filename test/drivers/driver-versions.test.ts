/**
 * The advice names the option of the driver version the agent reported (issue 39, part 4):
 * pgx v4 (installed: Debian's 4.15) and v5 (from a version string, as a v5 agent would report
 * it) spell the same fix differently, and PDO's depends on PHP's version and libpq's. Pure: the
 * advice is a function of the driver spec, the configuration, the outcome and the version.
 */
import { expect, test } from 'vitest';
import { adviceFor } from '../../drivers/advice.js';
import { DRIVERS, type DriverSpec } from '../../drivers/catalogue.js';

const spec = (id: string): DriverSpec => {
  const d = DRIVERS.find((x) => x.id === id);
  if (!d) throw new Error(id);
  return d;
};
const config = (d: DriverSpec, name: string) => {
  const c = d.configs.find((x) => x.name === name);
  if (!c) throw new Error(name);
  return c;
};

test("pgx v4's failing default is advised v4's prefer_simple_protocol, v5's default_query_exec_mode", () => {
  const pgx = spec('pgx');
  const v4 = adviceFor(pgx, config(pgx, 'default'), 'moved', 'failed', '4.15.0');
  expect(v4).toMatch(/prefer_simple_protocol=true/);
  expect(v4).not.toMatch(/default_query_exec_mode|QueryExecMode/);
  const v5 = adviceFor(pgx, config(pgx, 'default'), 'moved', 'failed', '5.5.0');
  expect(v5).toMatch(/default_query_exec_mode=simple_protocol/);
  expect(v5).toMatch(/pgx\.QueryExecModeSimpleProtocol/);
  expect(v5).not.toMatch(/prefer_simple_protocol|PreferSimpleProtocol/);
  // An advised v4 configuration that still failed names itself in the version's words.
  const describe = config(pgx, 'statement_cache_mode=describe');
  expect(adviceFor(pgx, describe, 'moved', 'failed', '4.15.0')).toMatch(/^statement_cache_mode=describe /);
  expect(adviceFor(pgx, describe, 'moved', 'failed', '5.5.0')).toMatch(/^default_query_exec_mode=cache_describe /);
  // Control: an outcome that needs nothing gets no advice, whatever the version.
  expect(adviceFor(pgx, config(pgx, 'default'), 'moved', 'works', '5.5.0')).toBeNull();
});

test("PDO's option and pooler-side fix follow PHP's version and libpq's", () => {
  const pdo = spec('pdo-pgsql');
  const disable = config(pdo, 'PGSQL_ATTR_DISABLE_PREPARES=true');
  const old = adviceFor(pdo, disable, 'moved', 'failed', '8.2.36 (libpq 15.18)');
  expect(old).toMatch(/PDO::PGSQL_ATTR_DISABLE_PREPARES/);
  expect(old).toMatch(/does not cover PDO 8\.2\.36 \(libpq 15\.18\)/);
  expect(old).not.toMatch(/max_prepared_statements > 0/);
  const new84 = adviceFor(pdo, disable, 'moved', 'failed', '8.4.3 (libpq 17.2)');
  expect(new84).toMatch(/Pdo\\Pgsql::ATTR_DISABLE_PREPARES/);
  expect(new84).not.toMatch(/PDO::PGSQL_ATTR_DISABLE_PREPARES/);
  // PHP 8.4 with libpq 17 closes statements with the protocol: the pooler's tracking is the fix.
  expect(new84).toMatch(/max_prepared_statements > 0/);
  // PHP 8.4 built with an older libpq still sends SQL DEALLOCATE.
  expect(adviceFor(pdo, disable, 'moved', 'failed', '8.4.3 (libpq 16.4)')).toMatch(/does not cover PDO 8\.4\.3/);
  // The default's fix, emulated prepares, is spelled alike in every version.
  const dflt = config(pdo, 'default');
  for (const v of ['8.2.36 (libpq 15.18)', '8.4.3 (libpq 17.2)'])
    expect(adviceFor(pdo, dflt, 'collision', 'retried', v)).toMatch(/PDO::ATTR_EMULATE_PREPARES => true/);
});
