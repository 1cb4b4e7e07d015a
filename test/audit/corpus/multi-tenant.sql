-- Multi-tenancy: schema per tenant (search_path), row-level security keyed on a setting,
-- and role switching. Format: see migration-tools.sql.

-- apartment (Rails) and django-tenants: schema per tenant.
-- expect: session/search-path-leak -- the next client on that backend resolves names in this tenant's schema
SET search_path TO "tenant_acme", "public";
-- expect: session/search-path-leak -- switching back is still a session-level SET (the audit cannot know it is the default)
SET search_path TO "public";
-- expect: cleanup of session/search-path-leak -- RESET puts the default back
RESET search_path;
-- expect: none -- SET LOCAL search_path is scoped to the transaction
SET LOCAL search_path TO "tenant_acme", public;
-- expect: session/search-path-leak -- SET SCHEMA is SET search_path
SET SCHEMA 'tenant_acme';

-- Row-level security keyed on a custom setting.
-- expect: session/custom-guc-leak -- another client on that backend sees this tenant's rows
SET app.current_tenant = '42';
-- expect: session/custom-guc-leak -- set_config with is_local false is the same
SELECT set_config('app.current_tenant', '42', false);
-- expect: none -- is_local true: scoped to the transaction
SELECT set_config('app.current_tenant', '42', true);
-- expect: none -- reading the setting in a policy or query
SELECT * FROM invoices WHERE tenant_id = current_setting('app.current_tenant')::int;
-- expect: cleanup of session/custom-guc-leak -- the middleware resets it after the request
RESET app.current_tenant;

-- PostgREST and PostGraphile: everything transaction-scoped.
-- expect: none -- PostgREST's claims are is_local true
SELECT set_config('request.jwt.claims', '{"role":"web_anon"}', true), set_config('role', 'web_anon', true);
-- expect: none -- SET LOCAL ROLE ends with the transaction
SET LOCAL ROLE web_user;

-- Role switching per request, done the session way.
-- expect: session/role-leak -- the next client on that backend runs as this role
SET ROLE tenant_acme_rw;
-- expect: cleanup of session/role-leak -- RESET ROLE undoes it
RESET ROLE;
-- expect: cleanup of session/role-leak -- SET ROLE NONE is the other spelling
SET ROLE NONE;
-- expect: session/role-leak -- session authorization switches the session user
SET SESSION AUTHORIZATION 'tenant_admin';
-- expect: cleanup of session/role-leak -- back to the login user
SET SESSION AUTHORIZATION DEFAULT;
-- expect: session/role-leak + session/custom-guc-leak -- a DO block that sets the role and the tenant for the session
DO $$ BEGIN SET ROLE tenant_acme_rw; PERFORM set_config('app.current_tenant', '42', false); END $$;
