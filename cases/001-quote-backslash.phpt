--TEST--
double quote and backslash are escaped as \" and \\
--VALUE--
"say \"hi\" C:\\dir\\file"
--EXPECT--
"say \"hi\" C:\\dir\\file"
