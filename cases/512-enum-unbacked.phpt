--TEST--
a non-backed enum is JSON_ERROR_NON_BACKED_ENUM
--SETUP--
enum Status { case Active; case Inactive; }
--VALUE--
[Status::Active]
