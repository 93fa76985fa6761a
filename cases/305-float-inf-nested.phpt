--TEST--
INF inside an array is JSON_ERROR_INF_OR_NAN
--VALUE--
['x' => [1, -INF]]
