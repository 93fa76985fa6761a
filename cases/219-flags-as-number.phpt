--TEST--
flags given as a number: 320 = JSON_UNESCAPED_UNICODE|JSON_UNESCAPED_SLASHES
--FLAGS--
320
--VALUE--
['path' => '/tmp/é']
--EXPECT--
{"path":"/tmp/é"}
