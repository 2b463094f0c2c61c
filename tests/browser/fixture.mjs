// SPDX-License-Identifier: Apache-2.0
// A small made-up news day for the console's browser tests: three stories
// reprinted by several (fictional) outlets with new headlines, changed
// words and ad lines, three stories run once, and one document whose text
// and title are HTML. All text was written for this fixture.
//
// Expected clusters (the tests check the list against these):
//   library  4 articles (zh, titles from the first line of the text)
//   river    3 articles (en, titles from meta.title)
//   cold     2 articles (zh)
//   tea, chess, xss: 1 article each

const T0 = Date.UTC(2024, 10, 21, 1, 0);  // 2024-11-21 09:00 in Beijing
const min = 60 * 1000;

const library = `本报讯 经过三年建设，位于滨江区江畔路的新市立图书馆于今天上午九点正式向公众开放。新馆建筑面积约四万平方米，共有六层，设有少儿阅览区、古籍修复展示区、数字体验区和可容纳三百人的报告厅。开馆首日，不少市民一早便在门口排起长队。馆方介绍，新馆首批上架图书约一百二十万册，其中地方文献两万余种，并引入了自助借还系统和智能书架，读者凭身份证或电子借阅证即可借书。为方便上班族，新馆周一至周五开放至晚上九点，周末开放至晚上八点。馆长在开馆仪式上表示，图书馆将定期举办读书会、讲座和亲子活动，希望它成为市民身边的“第三空间”。据了解，原中山路老馆将保留为社区分馆，继续提供借阅服务。`;

const river = `More than four hundred volunteers spent Saturday morning clearing litter from the banks of the Willow River, organisers said. Working in teams along a six-kilometre stretch between the old mill and the harbour bridge, they collected nearly two tonnes of rubbish, including plastic bottles, fishing line, shopping trolleys and a rusted bicycle. The clean-up, now in its fifth year, was coordinated by the Friends of Willow River with support from the city parks department, which provided gloves, bags and a skip. Local schools sent students, and several cafes along the route offered free coffee to anyone wearing a volunteer vest. Organisers said the amount of plastic found had fallen for the second year running, which they credited to new bins installed near the footpath last spring. The next clean-up is planned for early October.`;

const cold = `受新一股冷空气影响，本周末起我市将出现明显降温和大风天气。市气象台预计，周六白天最高气温约十四摄氏度，周日早晨最低气温将降至二摄氏度左右，降温幅度达八到十度，部分郊区可能出现霜冻。周六下午到夜间，全市有四到五级偏北风，阵风可达七级，沿江地区风力更大。气象部门提醒市民及时添加衣物，外出注意防风，并妥善固定阳台花盆、广告牌等高空物品；农业生产单位要做好大棚蔬菜的保温工作。预计下周二起气温将逐步回升，天气以晴到多云为主。`;

export const documents = [
  // library: four outlets
  { id: 'dongfang-0412', time: T0, meta: { source: '东方日报', url: 'https://news.example/dongfang/0412' },
    text: `滨江新图书馆今日开放 藏书逾百万册\n${library}` },
  { id: 'jiangnan-2201', time: T0 + 35 * min, meta: { source: '江南晚报' },
    text: `百万册藏书！滨江新馆正式迎客\n${library.replace('今天上午九点', '今日上午9时')}\n（来源：东方日报，转载请注明出处）` },
  { id: 'xinghai-7781', time: T0 + 80 * min, meta: { source: '星海新闻网' },
    text: `滨江区新图书馆开门迎客，市民排队入馆\n${library}\n下载星海新闻客户端，更多本地资讯抢先看。` },
  { id: 'beian-0093', time: T0 + 150 * min, meta: { source: '北岸时报' },
    text: `新图书馆开放首日 市民热情高涨\n${library.replace('不少市民一早便', '许多市民清晨就')}` },
  // river: three outlets, titles in meta
  { id: 'gazette-551', time: T0 + 10 * min,
    meta: { source: 'Riverside Gazette', title: 'Volunteers pull two tonnes of rubbish from Willow River' },
    text: river },
  { id: 'courier-88', time: T0 + 95 * min,
    meta: { source: 'Valley Courier', title: 'Record turnout for Willow River clean-up' },
    text: `${river.replace('More than four hundred', 'Over 400')}\nSubscribe to the Valley Courier for local news every morning.` },
  { id: 'metro-3120', time: T0 + 200 * min,
    meta: { source: 'Metro Daily Wire', title: 'Willow River volunteers find less plastic' },
    text: `${river}\nAdvertisement: Metro Daily Wire, all your city news in one app.` },
  // cold: two outlets
  { id: 'dongfang-0419', time: T0 + 60 * min, meta: { source: '东方日报' },
    text: `冷空气周末到 气温最多降十度\n${cold}` },
  { id: 'xinghai-7790', time: T0 + 130 * min, meta: { source: '星海新闻网' },
    text: `周末降温大风 注意防寒保暖\n${cold.replace('十四摄氏度', '14℃')}` },
  // run once
  { id: 'jiangnan-2207', time: T0 + 40 * min, meta: { source: '江南晚报' },
    text: `茶文化节在古镇开幕\n第五届山乡茶文化节今天在青石古镇开幕，来自周边六个县的八十多家茶企带来了绿茶、白茶和红茶等上百种产品。活动为期三天，设有制茶技艺展示、茶艺表演和采茶体验等环节，游客还可以在老街品尝用新茶制作的点心。` },
  { id: 'courier-91', time: T0 + 170 * min, meta: { source: 'Valley Courier' },
    text: `Teenager wins county chess title\nA fifteen-year-old from Elmford won the county chess championship on Sunday after an unbeaten run of seven games, finishing half a point ahead of the defending champion. She learned the game at her school club three years ago and now trains twice a week at the town library.` },
  { id: 'xss-1', time: T0 + 5 * min,
    meta: { source: '<img src=x onerror="window.__xss=3">', title: '<b>bold</b><script>window.__xss=1</script> headline' },
    text: `<script>window.__xss = 2</script><img src=x onerror="window.__xss=4">\nThis post tries to inject markup; the console must show it as text.` },
];

// The list in size order, largest first, ties by id descending (docs/api.md).
export const expectedBySizeDesc = [
  ['dongfang-0412', 4], ['gazette-551', 3], ['dongfang-0419', 2],
  ['xss-1', 1], ['jiangnan-2207', 1], ['courier-91', 1],
];
