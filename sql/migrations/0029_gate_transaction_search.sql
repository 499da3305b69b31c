-- Up Migration
-- GET /v1/transactions?search= (the console's gate review search box, issue 34): the beginning of the
-- container id OR of the plate. The container index already serves a prefix (text_pattern_ops); the plate
-- index served only equality, and under a libc collation other than C (C.UTF-8 here) `LIKE 'AB12%'`
-- cannot use a plain B-tree. A text_pattern_ops index serves both the plate's equality (vehicle_plate=)
-- and its prefix, so it replaces the plain one rather than adding a second index to every insert.
DROP INDEX gate_transactions_plate;
CREATE INDEX gate_transactions_plate ON gate_transactions (plate_key text_pattern_ops, created_at);
-- sort=review (flagged and held first, then by risk score: the console's review queue, polled every 15 s):
-- the flagged and held part walks this index from the top (transaction-list.ts); the rest walks
-- gate_transactions_risk. Partial, so only the transactions that wait for an officer pay for it on insert.
-- 7 days of 230,000 transactions, 4 % waiting, at load 20: 312 ms sorting the window by the expression,
-- about 1 ms with the two branches and this index.
CREATE INDEX gate_transactions_review ON gate_transactions (risk_score, created_at, id) WHERE status IN ('flagged', 'held');

-- Down Migration
DROP INDEX gate_transactions_review;
DROP INDEX gate_transactions_plate;
CREATE INDEX gate_transactions_plate ON gate_transactions (plate_key, created_at);
