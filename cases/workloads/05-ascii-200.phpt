--TEST--
workload: 100 strings of 200 ASCII chars, nothing to escape
--MEASURE--
200
--VALUE--
$s = [];
for ($i = 0; $i < 100; $i++) {
    $s[] = substr(str_repeat("Lorem ipsum dolor sit amet consectetur adipiscing elit $i ", 5), 0, 200);
}
return $s;
