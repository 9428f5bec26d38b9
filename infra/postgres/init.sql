-- Runs once, when the postgres container initialises an empty data volume.
-- One database per service; each service's migrations create its tables.
CREATE DATABASE tm_gateway;
CREATE DATABASE tm_memory;
CREATE DATABASE tm_billing;
CREATE DATABASE tm_telemetry;
CREATE DATABASE tm_template;
CREATE DATABASE tm_webhooks;
