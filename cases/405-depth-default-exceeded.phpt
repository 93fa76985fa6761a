--TEST--
600 nested arrays pass the default depth 512: JSON_ERROR_DEPTH
--VALUE--
$v = 1;
for ($i = 0; $i < 600; $i++) {
    $v = [$v];
}
return $v;
