--TEST--
JSON_PARTIAL_OUTPUT_ON_ERROR: an invalid string becomes null, JSON_ERROR_UTF8 still set
--FLAGS--
JSON_PARTIAL_OUTPUT_ON_ERROR
--VALUE--
["good", "b\xC3\x28d", "also good"]
--EXPECT--
["good",null,"also good"]
