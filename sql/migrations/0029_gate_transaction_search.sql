-- Up Migration
-- GET /v1/transactions?search= (the console's gate review search box, issue 34): the beginning of the
-- container id OR of the plate. The container index already serves a prefix (text_pattern_ops); the plate
-- index served only equality, and under a libc collation other than C (C.UTF-8 here) `LIKE 'AB12%'`
-- cannot use a plain B-tree. A text_pattern_ops index serves both the plate's equality (vehicle_plate=)
-- and its prefix, so it replaces the plain one rather than adding a second index to every insert.
DROP INDEX gate_transactions_plate;
CREATE INDEX gate_transactions_plate ON gate_transactions (plate_key text_pattern_ops, created_at);

-- Down Migration
DROP INDEX gate_transactions_plate;
CREATE INDEX gate_transactions_plate ON gate_transactions (plate_key, created_at);
