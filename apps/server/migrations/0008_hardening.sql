-- Issue 23: refresh tokens and authorization codes are stored by the SHA-256 of their value
-- (base64url, as tokenHash in platform/identity/adapter.ts computes it), never the value itself,
-- and their payload no longer repeats the value as jti. Rows stored before are converted in place.
UPDATE "oidc_payloads"
SET "id" = rtrim(translate(encode(sha256(convert_to("id", 'UTF8')), 'base64'), '+/', '-_'), '='),
    "payload" = "payload" - 'jti'
WHERE "model" IN ('RefreshToken', 'AuthorizationCode');
