--TEST--
workload: 100 rows, 12 string keys each
--MEASURE--
200
--VALUE--
$rows = [];
for ($i = 0; $i < 100; $i++) {
    $rows[] = [
        'id' => $i,
        'active' => $i % 3 !== 0,
        'family' => "Family$i",
        'given' => "Given$i",
        'gender' => $i % 2 ? 'female' : 'male',
        'birthDate' => sprintf('19%02d-%02d-%02d', 50 + $i % 50, 1 + $i % 12, 1 + $i % 28),
        'city' => "City$i",
        'postalCode' => sprintf('%05d', 10000 + $i),
        'country' => 'DE',
        'phone' => sprintf('+49 30 %07d', $i * 7919),
        'email' => "user$i@example.org",
        'score' => $i + 0.25,
    ];
}
return $rows;
