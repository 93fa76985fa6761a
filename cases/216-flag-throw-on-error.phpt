--TEST--
JSON_THROW_ON_ERROR: invalid UTF-8 throws JsonException with JSON_ERROR_UTF8
--FLAGS--
JSON_THROW_ON_ERROR
--VALUE--
"bad \xC3\x28"
