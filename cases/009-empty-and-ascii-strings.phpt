--TEST--
empty string, digits-only string and plain ASCII
--VALUE--
["", "0", "123", "plain ascii text", " "]
--EXPECT--
["","0","123","plain ascii text"," "]
