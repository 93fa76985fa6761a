--TEST--
JSON_UNESCAPED_UNICODE writes valid UTF-8 raw
--FLAGS--
JSON_UNESCAPED_UNICODE
--VALUE--
['José' => 'Müller-Øster', 'jp' => '日本語', 'emoji' => '😀']
--EXPECT--
{"José":"Müller-Øster","jp":"日本語","emoji":"😀"}
