--TEST--
workload: 100 URLs (https://example.org/fhir/R4/Patient/123/...)
--MEASURE--
200
--VALUE--
$s = [];
for ($i = 0; $i < 100; $i++) {
    $s[] = 'https://example.org/fhir/R4/Patient/' . (123 + $i) . '/_history/' . ($i % 5 + 1);
}
return $s;
