--TEST--
workload: 100 strings of 200 chars ending with "
--MEASURE--
200
--VALUE--
$s = [];
for ($i = 0; $i < 100; $i++) {
    $s[] = substr(str_repeat("quoted text number $i ", 12), 0, 199) . '"';
}
return $s;
