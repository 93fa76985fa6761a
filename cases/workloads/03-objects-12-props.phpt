--TEST--
workload: 100 objects, 12 declared properties each
--MEASURE--
200
--SETUP--
class Row12 {
    public $id;
    public $active;
    public $family;
    public $given;
    public $gender;
    public $birthDate;
    public $city;
    public $postalCode;
    public $country = 'DE';
    public $phone;
    public $email;
    public $score;

    public function __construct(int $i) {
        $this->id = $i;
        $this->active = $i % 3 !== 0;
        $this->family = "Family$i";
        $this->given = "Given$i";
        $this->gender = $i % 2 ? 'female' : 'male';
        $this->birthDate = sprintf('19%02d-%02d-%02d', 50 + $i % 50, 1 + $i % 12, 1 + $i % 28);
        $this->city = "City$i";
        $this->postalCode = sprintf('%05d', 10000 + $i);
        $this->phone = sprintf('+49 30 %07d', $i * 7919);
        $this->email = "user$i@example.org";
        $this->score = $i + 0.25;
    }
}
--VALUE--
$rows = [];
for ($i = 0; $i < 100; $i++) {
    $rows[] = new Row12($i);
}
return $rows;
