--TEST--
workload: a FHIR search Bundle, 20 patients as nested arrays
--MEASURE--
200
--VALUE--
$entries = [];
for ($i = 0; $i < 20; $i++) {
    $id = (string)(123 + $i);
    $entries[] = [
        'fullUrl' => "https://example.org/fhir/R4/Patient/$id",
        'resource' => [
            'resourceType' => 'Patient',
            'id' => $id,
            'meta' => ['versionId' => '1', 'lastUpdated' => '2024-05-01T12:00:00+00:00'],
            'identifier' => [['system' => 'urn:oid:1.2.36.146.595.217.0.1', 'value' => "MRN-$id"]],
            'active' => true,
            'name' => [['use' => 'official', 'family' => 'Müller', 'given' => ['José', 'Maria']]],
            'telecom' => [['system' => 'phone', 'value' => '+49 30 1234567', 'use' => 'home']],
            'gender' => $i % 2 ? 'female' : 'male',
            'birthDate' => sprintf('19%02d-%02d-%02d', 50 + $i, 1 + $i % 12, 1 + $i % 28),
            'address' => [['line' => ["Hauptstraße $i"], 'city' => 'Berlin', 'postalCode' => '10115', 'country' => 'DE']],
        ],
        'search' => ['mode' => 'match', 'score' => 1],
    ];
}
return [
    'resourceType' => 'Bundle',
    'id' => 'search-result',
    'meta' => ['lastUpdated' => '2024-05-01T12:00:00+00:00'],
    'type' => 'searchset',
    'total' => 20,
    'link' => [['relation' => 'self', 'url' => 'https://example.org/fhir/R4/Patient?name=M%C3%BCller&_count=20']],
    'entry' => $entries,
];
