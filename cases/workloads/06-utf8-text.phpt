--TEST--
workload: 100 strings of UTF-8 text (José Müller-Øster...)
--MEASURE--
200
--VALUE--
$names = ['José Müller-Øster', 'Zoë Ångström', 'Łukasz Żółć', 'Ærøskøbing Straße',
    'François Lefèvre', 'Søren Kierkegaard', 'Antonín Dvořák', 'Begoña Ibáñez'];
$s = [];
for ($i = 0; $i < 100; $i++) {
    $s[] = $names[$i % 8] . " wohnt in Köln, Straße Nr. $i, größer als ältere Häuser";
}
return $s;
